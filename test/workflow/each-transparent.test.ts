/**
 * What the workflow's monitors see: a transparent state is skipped by every constraint that does not name it (and
 * moves into and out of it are judged from the state before it); a tool call repeating the current state is another
 * occurrence for constraints with `each`. Property test: the monitors agree with `evaluateConstraint` on the trace each
 * constraint sees, built here independently from the events.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateConstraint, type TemporalConstraint } from '../../src/temporal/index.js';
import { createSnapshot, parseWorkflow, previewEnter, transition, type WorkflowSnapshot } from '../../src/workflow/index.js';

const workflow = parseWorkflow(`
name: writes
states:
  - { name: start, initial: true }
  - { name: confirm, classification: { patterns: ["yes"] } }
  - { name: write, classification: { tool_calls: [write_tool] } }
  - { name: look, transparent: true, classification: { tool_calls: [lookup] } }
  - { name: other }
transitions:
  - { from: start, to: confirm }
  - { from: start, to: other }
  - { from: confirm, to: write }
  - { from: confirm, to: look }
  - { from: write, to: start }
  - { from: write, to: confirm }
  - { from: other, to: start }
  - { from: other, to: confirm }
constraints:
  - { name: confirm_each, type: precedence, trigger: write, target: confirm, each: true }
  - { name: confirm_first, type: precedence, trigger: write, target: confirm }
  - { name: answered_each, type: response, trigger: write, target: [start, other], each: true }
  - { name: next_after_confirm, type: next, trigger: confirm, target: write }
  - { name: never_look, type: never, target: look }
  - { name: always_not_other, type: always, condition: "!other" }
on_invalid_transition: record
`);

type Event = { state: string; toolCall: boolean };
const STATES = ['start', 'confirm', 'write', 'look', 'other'];

/** The trace a constraint sees: transparent states it does not name skipped, repeats collapsed unless each and a tool call. */
function seenTrace(events: readonly Event[], names: (state: string) => boolean, each: boolean): string[] {
  const trace = ['start'];
  let current = 'start';
  for (const { state, toolCall } of events) {
    const same = state === current;
    if (same && !(toolCall && workflow.definition.constraints.some((c) => c.each))) continue; // the workflow ignores it
    current = state;
    if (state === 'look' && !names(state)) continue;
    if (state === trace.at(-1) && !(each && toolCall)) continue;
    trace.push(state);
  }
  return trace;
}

const play = (events: readonly Event[]) => {
  let snapshot: WorkflowSnapshot = createSnapshot(workflow, { at: 0 });
  for (const { state, toolCall } of events) snapshot = transition(workflow, snapshot, { type: 'enter', state, at: 1, method: toolCall ? 'tool_call' : 'pattern' }).snapshot;
  return snapshot;
};

describe('transparent states and each, through transition()', () => {
  it('every monitor agrees with the oracle on the trace it sees', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ state: fc.constantFrom(...STATES), toolCall: fc.boolean() }), { maxLength: 14 }), (events) => {
        const snapshot = play(events);
        for (const constraint of workflow.definition.constraints) {
          const named = (state: string) => [constraint.trigger, constraint.target, constraint.condition].some((selector) => [selector ?? []].flat().some((name) => name.replace(/^!/, '') === state));
          const expected = evaluateConstraint(constraint as TemporalConstraint, seenTrace(events, named, constraint.each === true));
          expect([constraint.name, snapshot.monitors[constraint.name]!.verdict]).toEqual([constraint.name, expected]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('a lookup between the yes and the write is no deviation, and no step for the ordering constraints', () => {
    const snapshot = play([
      { state: 'confirm', toolCall: false },
      { state: 'look', toolCall: true },
      { state: 'write', toolCall: true },
    ]);
    expect(snapshot.deviations).toEqual([]);
    expect(snapshot.trace).toEqual(['start', 'confirm', 'look', 'write']);
    expect(snapshot.monitors.next_after_confirm!.verdict).toBe('pending'); // confirm then write, the look skipped
    expect(snapshot.monitors.never_look!.verdict).toBe('violated'); // it names the state: it sees it
  });

  it('without transparent, the same lookup is a deviation (the old behaviour)', () => {
    const opaque = parseWorkflow(`
name: opaque
states:
  - { name: start, initial: true }
  - { name: confirm }
  - { name: write }
  - { name: look }
transitions:
  - { from: start, to: confirm }
  - { from: confirm, to: write }
  - { from: confirm, to: look }
  - { from: look, to: confirm }
`);
    let snapshot = createSnapshot(opaque, { at: 0 });
    for (const state of ['confirm', 'look', 'write']) snapshot = transition(opaque, snapshot, { type: 'enter', state, at: 1 }).snapshot;
    expect(snapshot.deviations.map((deviation) => `${deviation.from}->${deviation.to}`)).toEqual(['look->write']);
  });

  it('a second write in a row, without a new yes, is refused before it runs', () => {
    const snapshot = play([
      { state: 'confirm', toolCall: false },
      { state: 'write', toolCall: true },
    ]);
    const preview = previewEnter(workflow, snapshot, 'write', { method: 'tool_call' });
    expect(preview.violations.map((violation) => violation.constraint)).toEqual(['confirm_each', 'answered_each']);
    const after = transition(workflow, snapshot, { type: 'enter', state: 'write', at: 2, method: 'tool_call' });
    expect(after.snapshot.trace).toEqual(snapshot.trace); // no new position
    expect(after.effects.filter((effect) => effect.type === 'constraint-violated')).toHaveLength(2);
    // A text turn classified in the same state stays what it was: nothing.
    expect(transition(workflow, snapshot, { type: 'enter', state: 'write', at: 2, method: 'pattern' }).effects).toEqual([]);
  });
});

describe('validation', () => {
  it('refuses each on a type it does not apply to, with the path', () => {
    expect(() => parseWorkflow('name: w\nstates:\n  - { name: a, initial: true }\nconstraints:\n  - { name: c, type: never, target: a, each: true }\n', { source: 'w.yaml' })).toThrow(
      /w\.yaml:5:\d+ error constraints\[0\]\.each: `each` does not apply to type 'never'/,
    );
  });
});

describe('through the monitor', () => {
  it('refuses the second write of a run before it executes; a new yes lets the next one through', async () => {
    const { createMonitor } = await import('../../src/monitor/index.js');
    const critical = parseWorkflow(`
name: writes
states:
  - { name: start, initial: true }
  - { name: confirm, classification: { patterns: ["(yes/no)"] } }
  - { name: write, classification: { tool_calls: [write_tool] } }
  - { name: look, transparent: true, classification: { tool_calls: [lookup] } }
constraints:
  - { name: confirm_each, type: precedence, trigger: write, target: confirm, each: true, severity: critical }
`);
    const monitor = createMonitor({ workflow: critical });
    const call = (id: string, name = 'write_tool') => ({ id, name, args: {} });
    await monitor.afterModel('s', { content: 'Book it? (yes/no)', toolCalls: [] });
    await monitor.afterModel('s', { content: '', toolCalls: [call('l1', 'lookup')] });
    expect((await monitor.beforeTool('s', call('l1', 'lookup'))).action).toBe('allow');
    await monitor.afterModel('s', { content: '', toolCalls: [call('w1')] });
    expect((await monitor.beforeTool('s', call('w1'))).action).toBe('allow');
    await monitor.afterModel('s', { content: '', toolCalls: [call('w2')] });
    expect(await monitor.beforeTool('s', call('w2'))).toMatchObject({ action: 'deny', constraints: ['confirm_each'] });
    await monitor.afterModel('s', { content: 'And the second one? (yes/no)', toolCalls: [] });
    await monitor.afterModel('s', { content: '', toolCalls: [call('w3')] });
    expect((await monitor.beforeTool('s', call('w3'))).action).toBe('allow');
  });
});

describe("confirmations recognised in the user's turn", () => {
  const confirmByUser = parseWorkflow(`
name: user-yes
states:
  - { name: start, initial: true }
  - { name: offer, classification: { patterns: ["would you like"] } }
  - { name: confirm, classification: { turn: user, patterns: ["^\\\\s*(yes|yeah|yep|sure|ok|confirm)\\\\b"] } }
  - { name: write, classification: { tool_calls: [write_tool] } }
constraints:
  - { name: confirm_each, type: precedence, trigger: write, target: confirm, each: true, severity: critical }
`);

  it("the agent's own words never confirm; the user's yes does, after the tool calls before it", async () => {
    const { createMonitor } = await import('../../src/monitor/index.js');
    const monitor = createMonitor({ workflow: confirmByUser });
    const write = { id: 'w1', name: 'write_tool', args: {} };
    await monitor.beforeModel('s', { messages: [{ role: 'user', content: 'Book it.' }] });
    // Listing options with a question: before, a pattern like "yes|proceed" on the agent's text counted as a confirmation.
    await monitor.afterModel('s', { content: 'Option A or B; would you like me to proceed? Yes, I can.', toolCalls: [] });
    await monitor.afterModel('s', { content: '', toolCalls: [write] });
    expect(await monitor.beforeTool('s', write)).toMatchObject({ action: 'deny', constraints: ['confirm_each'] });
    await monitor.beforeModel('s', { messages: [{ role: 'user', content: 'Book it.' }, { role: 'assistant', content: 'A, on May 20?' }, { role: 'user', content: 'yes' }] });
    const again = { ...write, id: 'w2' };
    await monitor.afterModel('s', { content: '', toolCalls: [again] });
    expect((await monitor.beforeTool('s', again)).action).toBe('allow');
    expect((await monitor.report('s'))!.trace).toEqual(['start', 'offer', 'confirm', 'write']);
  });

  it('refuses tool calls or exemplars on a user-turn state, at load', () => {
    expect(() => parseWorkflow('name: w\nstates:\n  - { name: a, initial: true }\n  - { name: b, classification: { turn: user, tool_calls: [x] } }\n', { source: 'w.yaml' })).toThrow(/states\[1\]\.classification\.turn: state 'b' is recognised in the user's turn/);
  });
});
