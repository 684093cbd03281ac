import { describe, expect, it } from 'vitest';
import { createMonitor } from '../../src/index.js';
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
});
