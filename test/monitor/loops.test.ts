import { describe, expect, it } from 'vitest';
import { createLoopDetector, createMonitor, LoopDetectedError, type ChatMessage } from '../../src/index.js';
import { recordingLogger, supportWorkflow as workflow } from './fixtures.js';

/** An agent that keeps calling the same tool, which keeps failing, until the monitor stops it. */
async function runStuckAgent(monitor: ReturnType<typeof createMonitor>) {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: 'Where is my parcel?' },
  ];
  const seen: string[] = [];
  for (let turn = 0; turn < 10; turn++) {
    const before = await monitor.beforeModel('s1', { messages });
    if (before.action === 'block') {
      seen.push(`block ${before.intervention.name}`);
      return { seen, block: before };
    }
    const loopHint = before.interventions.find((intervention) => intervention.name.startsWith('loop:'));
    seen.push(loopHint ? 'hint' : '-');
    const toolCall = { id: `c${turn}`, name: 'track_parcel', args: { parcel: 'P-1' } };
    messages.push({ role: 'assistant', content: '', toolCalls: [toolCall] });
    await monitor.afterModel('s1', { content: '', toolCalls: [toolCall] });
    messages.push({ role: 'tool', toolCallId: toolCall.id, name: 'track_parcel', content: 'HTTP 503', isError: true });
  }
  return { seen, block: undefined };
}

describe('loop detection inside the monitor', () => {
  it('is off by default', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    expect(monitor.loops).toBeUndefined();
    expect((await runStuckAgent(monitor)).block).toBeUndefined();
  });

  it('hints, hints harder, then blocks the next call with LoopDetectedError', async () => {
    const monitor = createMonitor({ workflow, loops: true, logger: recordingLogger() });
    const { seen, block } = await runStuckAgent(monitor);
    expect(seen).toEqual(['-', '-', '-', 'hint', 'hint', 'block loop:repeated-error']);
    expect(block!.error).toBeInstanceOf(LoopDetectedError);
    expect(LoopDetectedError.isInstance(block!.error)).toBe(true);
    expect(block!.error.message).toMatch(/^Run stopped in session 's1': repeated-error loop reached stop/);
  });

  it('puts the hint in the system prompt of the next call', async () => {
    const monitor = createMonitor({ workflow, loops: { repeatedError: 2 }, logger: recordingLogger() });
    const hints: string[] = [];
    monitor.on('intervention', ({ intervention }) => hints.push(intervention.text));
    await runStuckAgent(monitor);
    expect(hints[0]).toContain('`track_parcel` failed 2 times in a row');
  });

  it('accepts a detector of your own, and reports loops from afterModel', async () => {
    const loops = createLoopDetector({ monologue: 2 });
    const monitor = createMonitor({ workflow, loops, logger: recordingLogger() });
    expect(monitor.loops).toBe(loops);
    const seen: string[] = [];
    monitor.on('loop', ({ report }) => seen.push(`${report.kind} ${report.action}`));
    await monitor.afterModel('s1', { content: 'Let me check that for you.', toolCalls: [] });
    const second = await monitor.afterModel('s1', { content: 'Let me check that for you.', toolCalls: [] });
    expect(second.loop).toMatchObject({ kind: 'monologue', action: 'hint' });
    expect(seen).toEqual(['monologue hint']);
  });
});

describe('peek with loop detection', () => {
  it('shows a pending loop hint without taking it', async () => {
    const monitor = createMonitor({ workflow, loops: { monologue: 2 }, logger: recordingLogger() });
    await monitor.afterModel('s1', { content: 'Let me check that for you.', toolCalls: [] });
    await monitor.afterModel('s1', { content: 'Let me check that for you.', toolCalls: [] });
    const peeked = await monitor.peek('s1');
    expect(peeked).toEqual({ action: 'proceed', interventions: [expect.objectContaining({ name: 'loop:monologue' })] });
    const before = await monitor.beforeModel('s1', { messages: [{ role: 'user', content: 'hi' }] });
    expect(before.action === 'proceed' && before.interventions.map((intervention) => intervention.name)).toEqual(['loop:monologue']);
  });
});
