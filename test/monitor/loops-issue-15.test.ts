import { describe, expect, it } from 'vitest';
import { createMonitor, type ChatMessage } from '../../src/index.js';
import { recordingLogger, supportWorkflow as workflow } from './fixtures.js';

/** Issue 15 through a host: the monitor with `loops` on, fed one model turn at a time. */
async function turnKinds(monitor: ReturnType<typeof createMonitor>, turns: readonly { content: string; toolCalls?: { id?: string; name: string; args: Record<string, unknown> }[] }[]) {
  const kinds: string[] = [];
  for (const turn of turns) {
    const after = await monitor.afterModel('s1', { content: turn.content, toolCalls: turn.toolCalls ?? [] });
    kinds.push(after.loop?.kind ?? '-');
  }
  return kinds;
}

describe('issue 15 through the monitor', () => {
  it('repeated text: 10 copies of a 50-character passage ending in a space is a loop, 9 are not', async () => {
    const passage = 'The quick brown fox jumps over the lazy dog again ';
    const monitor = () => createMonitor({ workflow, loops: true, logger: recordingLogger() });
    expect(await turnKinds(monitor(), [{ content: passage.repeat(10) }])).toEqual(['repeated-text']);
    expect(await turnKinds(monitor(), [{ content: passage.repeat(9) }])).toEqual(['-']);
  });

  it('repeated text: code, tables and dividers are never a loop; the same chant in prose is', async () => {
    const chant = Array(12).fill('I will now check the booking status again to be sure.').join(' ');
    const monitor = () => createMonitor({ workflow, loops: true, logger: recordingLogger() });
    const markdown = `| id | status |\n|${'-'.repeat(500)}|\n\`\`\`\n${chant}\n\`\`\`\n${'='.repeat(500)}`;
    expect(await turnKinds(monitor(), [{ content: markdown }])).toEqual(['-']);
    expect(await turnKinds(monitor(), [{ content: `${markdown}\n${chant}` }])).toEqual(['repeated-text']);
  });

  it('identical calls: the 4th identical call with unchanged results is reported by afterModel; changing results are not', async () => {
    const run = async (result: (turn: number) => string) => {
      const monitor = createMonitor({ workflow, loops: true, logger: recordingLogger() });
      const messages: ChatMessage[] = [{ role: 'user', content: 'Where is my parcel?' }];
      const seen: string[] = [];
      for (let turn = 0; turn < 5; turn++) {
        await monitor.beforeModel('s1', { messages });
        const toolCall = { id: `c${turn}`, name: 'track_parcel', args: { parcel: 'P-1' } };
        messages.push({ role: 'assistant', content: '', toolCalls: [toolCall] });
        const after = await monitor.afterModel('s1', { content: '', toolCalls: [toolCall] });
        seen.push(after.loop?.kind ?? '-');
        messages.push({ role: 'tool', toolCallId: toolCall.id, name: 'track_parcel', content: result(turn) });
      }
      return seen;
    };
    expect(await run(() => 'in transit')).toEqual(['-', '-', '-', 'repeated-action', 'repeated-action']);
    expect(await run((turn) => `SyntaxError at line ${turn}`)).toEqual(['-', '-', '-', '-', 'tool-cycle']);
  });

  it('exempt by action: scrolling a page is not a loop, clicking the same button is', async () => {
    const when = (args: Record<string, unknown>) => String(args.action).startsWith('scroll');
    const monitor = () => createMonitor({ workflow, loops: { exempt: [{ tool: 'browser', when }] }, logger: recordingLogger() });
    const turns = (action: string) => Array.from({ length: 4 }, (_, i) => ({ content: '', toolCalls: [{ id: `c${i}`, name: 'browser', args: { action } }] }));
    expect(await turnKinds(monitor(), turns('scroll_down'))).toEqual(['-', '-', '-', '-']);
    expect(await turnKinds(monitor(), turns('click'))).toEqual(['-', '-', '-', 'repeated-action']);
  });
});
