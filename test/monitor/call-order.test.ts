import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMonitor, parseWorkflow, type Monitor, type ToolCall } from '../../src/index.js';
import { recordingLogger } from './fixtures.js';

// Bug 2 of issue 24: checks (`beforeTool`) that come out of call order, or late (after the next model call entered
// the calls' states), added steps and states no call made. Each call's state must enter once, in call order.

/** Three tools, one state each, any move allowed, nothing to refuse. */
const workflow = parseWorkflow(`
name: tools
states:
  - { name: start, initial: true }
  - { name: A, classification: { tool_calls: [a] } }
  - { name: B, classification: { tool_calls: [b] } }
  - { name: C, classification: { tool_calls: [c] } }
`);
const STATE_OF: Record<string, string> = { a: 'A', b: 'B', c: 'C' };

const toolCall = (name: string, id: string): ToolCall => ({ id, name, args: {} });
const response = (...toolCalls: ToolCall[]) => ({ content: '', toolCalls });
const newMonitor = () => createMonitor({ workflow, logger: recordingLogger() });

/** The trace a run of these calls makes: the initial state, then each call's state, consecutive duplicates collapsed. */
function expectedTrace(calls: readonly ToolCall[]): string[] {
  const trace = ['start'];
  for (const call of calls) if (trace.at(-1) !== STATE_OF[call.name]) trace.push(STATE_OF[call.name]!);
  return trace;
}

async function expectExact(monitor: Monitor, calls: readonly ToolCall[]): Promise<void> {
  const session = (await monitor.session('s1'))!;
  expect({ trace: session.workflow.trace, steps: session.steps.map((step) => step.state), stepCount: session.stepCount }).toEqual({
    trace: expectedTrace(calls),
    steps: calls.map((call) => STATE_OF[call.name]),
    stepCount: calls.length,
  });
}

describe('beforeTool out of call order or late', () => {
  it('enters the states of interleaved calls in call order whatever order they are checked in', async () => {
    const monitor = newMonitor();
    const calls = [toolCall('a', 'a1'), toolCall('b', 'b1'), toolCall('a', 'a2'), toolCall('b', 'b2')];
    await monitor.afterModel('s1', response(...calls));
    for (const id of ['b1', 'a2', 'b2', 'a1']) expect((await monitor.beforeTool('s1', calls.find((call) => call.id === id)!)).action).toBe('allow');
    await expectExact(monitor, calls);
  });

  it('adds no step for a late check of one of two calls of one tool, when the next response calls it again', async () => {
    const monitor = newMonitor();
    const first = [toolCall('a', 'a1'), toolCall('b', 'b1'), toolCall('a', 'a2')];
    await monitor.afterModel('s1', response(...first));
    await monitor.beforeTool('s1', first[0]!);
    const second = [toolCall('a', 'a3'), toolCall('c', 'c1')];
    await monitor.afterModel('s1', response(...second)); // the host went on before checking b1 and a2
    for (const call of [first[2]!, second[1]!, first[1]!, second[0]!]) expect((await monitor.beforeTool('s1', call)).action).toBe('allow');
    await expectExact(monitor, [...first, ...second]);
  });

  it('matches a call by its id, never by its name, when both have ids', async () => {
    const monitor = newMonitor();
    await monitor.afterModel('s1', response(toolCall('a', 'a1'), toolCall('b', 'b1')));
    await monitor.beforeModel('s1', { messages: [] }); // both ran unchecked
    await monitor.afterModel('s1', response(toolCall('a', 'a2')));
    await monitor.beforeTool('s1', toolCall('a', 'a1')); // late: a1's state already entered
    await monitor.beforeTool('s1', toolCall('a', 'a2'));
    await expectExact(monitor, [toolCall('a', 'a1'), toolCall('b', 'b1'), toolCall('a', 'a2')]);
  });

  it('takes a late check with an id for no call of the next response, even one announced without an id', async () => {
    const monitor = newMonitor();
    await monitor.afterModel('s1', response(toolCall('a', 'a1'), toolCall('b', 'b1')));
    await monitor.afterModel('s1', response({ name: 'a', args: {} })); // a1 and b1 ran unchecked
    await monitor.beforeTool('s1', toolCall('a', 'a1'));
    await monitor.beforeTool('s1', toolCall('b', 'b1'));
    await monitor.beforeTool('s1', { name: 'a', args: {} });
    await expectExact(monitor, [toolCall('a', 'a1'), toolCall('b', 'b1'), toolCall('a', 'a2')]);
  });

  it('property: the trace is the calls’ states in call order and there is one step per call, whatever the checks', async () => {
    /** A response: its tools, and for each call whether it is checked before the next model call, after it, or never. */
    const responseArbitrary = fc.array(fc.record({ name: fc.constantFrom('a', 'b', 'c'), when: fc.constantFrom('on time', 'late', 'never') }), { minLength: 1, maxLength: 5 });
    // `beforeModel`: whether the next model call's request is checked first (it enters the waiting states too), and
    // then whether the late checks come before the response or with its own checks.
    const runArbitrary = fc.array(fc.record({ calls: responseArbitrary, beforeModel: fc.constantFrom('none', 'late checks after it', 'late checks after the response'), seed: fc.integer() }), {
      minLength: 1,
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(runArbitrary, async (run) => {
        const monitor = newMonitor();
        const all: ToolCall[] = [];
        let late: ToolCall[] = [];
        for (const [turn, { calls, beforeModel, seed }] of run.entries()) {
          if (beforeModel !== 'none') await monitor.beforeModel('s1', { messages: [] });
          if (beforeModel === 'late checks after it') {
            for (const check of shuffle(late, seed)) expect((await monitor.beforeTool('s1', check)).action).toBe('allow');
            late = [];
          }
          const toolCalls = calls.map(({ name }, index) => toolCall(name, `${name}-${turn}-${index}`));
          all.push(...toolCalls);
          await monitor.afterModel('s1', response(...toolCalls));
          // This response's on-time checks and the last one's late checks, in an order the seed shuffles.
          const checks = shuffle([...late, ...toolCalls.filter((_, index) => calls[index]!.when === 'on time')], seed);
          late = toolCalls.filter((_, index) => calls[index]!.when === 'late');
          for (const check of checks) expect((await monitor.beforeTool('s1', check)).action).toBe('allow');
        }
        await monitor.beforeModel('s1', { messages: [] });
        for (const check of late) expect((await monitor.beforeTool('s1', check)).action).toBe('allow');
        await expectExact(monitor, all);
      }),
      { numRuns: 300 },
    );
  });
});

/** A deterministic shuffle of `items` by `seed` (fast-check shrinks the seed with the run). */
function shuffle<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0 || 1;
  for (let i = items.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const j = state % (i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
