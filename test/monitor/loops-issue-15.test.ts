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

  /** A scripted agent: each turn, beforeModel, the model's call, afterModel, then the tool's result in the messages. */
  async function agent(monitor: ReturnType<typeof createMonitor>, turns: readonly { name: string; args: Record<string, unknown>; result: string; user?: string }[]) {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Find me a flight.' }];
    const seen: string[] = [];
    for (const [turn, { name, args, result, user }] of turns.entries()) {
      if (user) messages.push({ role: 'user', content: user });
      const before = await monitor.beforeModel('s1', { messages });
      if (before.action === 'block') {
        seen.push(`block ${before.intervention.name}`);
        break;
      }
      const toolCall = { id: `c${turn}`, name, args };
      messages.push({ role: 'assistant', content: '', toolCalls: [toolCall] });
      const after = await monitor.afterModel('s1', { content: '', toolCalls: [toolCall] });
      seen.push(after.loop ? `${after.loop.kind} ${after.loop.action}` : '-');
      messages.push({ role: 'tool', toolCallId: toolCall.id, name, content: result });
    }
    return seen;
  }
  const loopsMonitor = (loops: Parameters<typeof createMonitor>[0]['loops'] = true) => createMonitor({ workflow, loops, logger: recordingLogger() });

  it('unknown-tool: a hint at the 2nd call to a tool not offered, then the run is blocked', async () => {
    const turns = [0, 1, 2, 3].map((i) => ({ name: 'serch', args: { q: i }, result: 'Error: tool serch not found' }));
    expect(await agent(loopsMonitor({ tools: ['search'] }), turns)).toEqual(['-', 'unknown-tool hint', 'unknown-tool stop', 'block loop:unknown-tool']);
    expect(await agent(loopsMonitor({ tools: ['search'] }), turns.map((turn) => ({ ...turn, name: 'search' })))).toEqual(['-', '-', '-', '-']);
  });

  it('unchanged-result: varying arguments, the same answer each time, is reported when the 4th result arrives', async () => {
    const monitor = loopsMonitor();
    const seen: string[] = [];
    monitor.on('loop', ({ report }) => seen.push(report.kind));
    await agent(monitor, [0, 1, 2, 3, 4].map((i) => ({ name: 'search', args: { q: `attempt ${i}` }, result: 'no results' })));
    expect(seen).toEqual(['unchanged-result']);
    const quiet = loopsMonitor();
    const none: string[] = [];
    quiet.on('loop', ({ report }) => none.push(report.kind));
    await agent(quiet, [0, 1, 2, 3, 4].map((i) => ({ name: 'search', args: { q: `attempt ${i}` }, result: `${i} results` })));
    expect(none).toEqual([]);
  });

  it('condensation: observeCondensation 10 times in a row without progress reports, 9 does not', async () => {
    const monitor = loopsMonitor();
    const reports = [];
    for (let i = 0; i < 10; i++) reports.push(await monitor.observeCondensation('s1'));
    expect(reports.map((report) => report?.kind ?? '-')).toEqual([...Array(9).fill('-'), 'condensation']);
    expect(await createMonitor({ workflow, logger: recordingLogger() }).observeCondensation('s1')).toBeNull();
  });

  it('repeated-line: a line written 5 times in one response is reported, 4 times is not', async () => {
    const line = 'Wait, let me re-check the config file first.';
    const text = (n: number) => Array.from({ length: n }, (_, i) => `${line}\nLooking at part ${i}.`).join('\n');
    expect(await turnKinds(loopsMonitor(), [{ content: text(5) }])).toEqual(['repeated-line']);
    expect(await turnKinds(loopsMonitor(), [{ content: text(4) }])).toEqual(['-']);
  });

  it('scope by user turn: a new user message between identical calls starts a fresh count', async () => {
    const same = { name: 'search', args: { q: 'AF12' }, result: 'sold out' };
    expect(await agent(loopsMonitor(), [same, same, same, { ...same, user: 'Try again please.' }, same])).toEqual(['-', '-', '-', '-', '-']);
    expect(await agent(loopsMonitor(), [same, same, same, same, same])).toEqual(['-', '-', '-', 'repeated-action hint', 'repeated-action stronger-hint']);
  });
});
