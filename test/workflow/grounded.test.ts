/**
 * Grounded confirmations in workflows: on an `each` precedence, `grounded: [args]` makes the user's yes count for a
 * call only when the message it answered stated those arguments of the call. Validated at load with positioned
 * errors; through transition() and the monitor; and a property test against `evaluateConstraint` on the trace with
 * the ungrounded yeses taken out.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/index.js';
import { createMonitor } from '../../src/monitor/index.js';
import { evaluateConstraint, type TemporalConstraint } from '../../src/temporal/index.js';
import { createSnapshot, parseWorkflow, previewEnter, transition, type WorkflowSnapshot } from '../../src/workflow/index.js';
import { diagnosticOf, yaml } from './helpers.js';

const YAML = (constraint: string, extraState = '') =>
  yaml(
    'name: w', // 1
    'states:', // 2
    '  - { name: start, initial: true }', // 3
    '  - { name: confirm, classification: { turn: user, patterns: ["^\\\\W*(yes|ok)\\\\b"] } }', // 4
    '  - { name: write, classification: { tool_calls: [write_tool] } }', // 5
    '  - { name: say, classification: { patterns: ["done"] } }', // 6
    `${extraState}constraints:`, // 7
    `  - ${constraint}`, // 8
  );

const workflow = parseWorkflow(YAML('{ name: confirm_write, type: precedence, trigger: write, target: confirm, each: true, grounded: [cabin, flights], severity: critical }'));
const ARGS = { cabin: 'business', flights: [{ flight_number: 'HAT001', date: '2024-05-20' }], payment_id: 'credit_card_1' };
const STATED = 'Upgrade HAT001 on May 20th to Business? (yes/no)';
const UNSTATED_CABIN = 'Change HAT001 on 05/20/2024? (yes/no)';

describe('grounded: validated at load, at the field', () => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['on another type', '{ name: c, type: response, trigger: write, target: confirm, grounded: [cabin] }', 'grounded-not-supported', /does not apply to type 'response'/],
    ['without each', '{ name: c, type: precedence, trigger: write, target: confirm, grounded: [cabin] }', 'grounded-needs-each', /without `each: true`/],
    ['an argument twice', '{ name: c, type: precedence, trigger: write, target: confirm, each: true, grounded: [cabin, cabin] }', 'grounded-duplicate-argument', /'cabin' is listed twice/],
    ['a wildcard trigger', '{ name: c, type: precedence, trigger: "*", target: confirm, each: true, grounded: [cabin] }', 'grounded-needs-named-states', /not '\*'/],
    ['a negated target', '{ name: c, type: precedence, trigger: write, target: "!start", each: true, grounded: [cabin] }', 'grounded-needs-named-states', /not '!start'/],
    ['a target the agent says', '{ name: c, type: precedence, trigger: write, target: say, each: true, grounded: [cabin] }', 'grounded-target-not-user-turn', /target 'say' .* not recognised in the user's turn/],
    ['a trigger without tool calls', '{ name: c, type: precedence, trigger: say, target: confirm, each: true, grounded: [cabin] }', 'grounded-trigger-not-tool-call', /trigger 'say' .* not recognised by tool calls/],
    ['an empty list', '{ name: c, type: precedence, trigger: write, target: confirm, each: true, grounded: [] }', 'empty-list', /the list is empty/],
    ['a string, not a list', '{ name: c, type: precedence, trigger: write, target: confirm, each: true, grounded: cabin }', 'invalid-type', /expected a list/],
  ];
  for (const [what, constraint, code, message] of cases) {
    it(`refuses ${what}, with file, line and field`, () => {
      const found = diagnosticOf(YAML(constraint), code);
      expect(found).toMatchObject({ severity: 'error', source: 'test.yaml', line: 8, path: 'constraints[0].grounded' });
      expect(found.message).toMatch(message);
    });
  }

  it('refuses an argument that is not a name', () => {
    const found = diagnosticOf(YAML('{ name: c, type: precedence, trigger: write, target: confirm, each: true, grounded: [cabin, 3] }'), 'invalid-type');
    expect(found).toMatchObject({ line: 8, path: 'constraints[0].grounded[1]' });
    expect(found.message).toMatch(/expected a string/);
  });

  it('every grounded finding carries a fix', () => {
    expect(diagnosticOf(YAML('{ name: c, type: precedence, trigger: write, target: confirm, grounded: [cabin] }'), 'grounded-needs-each').hint).toMatch(/add `each: true`/);
    expect(() => parseWorkflow(YAML('{ name: c, type: precedence, trigger: write, target: say, each: true, grounded: [cabin] }'), { source: 'w.yaml' })).toThrow(/w\.yaml:8:\d+ error constraints\[0\]\.grounded: target 'say'/);
  });
});

describe('grounded: through transition()', () => {
  const start = () => createSnapshot(workflow, { at: 0 });
  const yes = (snapshot: WorkflowSnapshot, answered: string) => transition(workflow, snapshot, { type: 'enter', state: 'confirm', at: 1, method: 'pattern', answered }).snapshot;
  const write = (snapshot: WorkflowSnapshot, args: Record<string, unknown>) => transition(workflow, snapshot, { type: 'enter', state: 'write', at: 2, method: 'tool_call', args });

  it('a yes to a message that stated the arguments confirms the call', () => {
    const after = write(yes(start(), STATED), ARGS);
    expect(after.effects.filter((effect) => effect.type === 'constraint-violated')).toEqual([]);
    expect(after.snapshot.monitors.confirm_write!.verdict).toBe('pending');
  });

  it('a yes to a message that left an argument out is no yes to this call; the violation names it', () => {
    const snapshot = yes(start(), UNSTATED_CABIN);
    const preview = previewEnter(workflow, snapshot, 'write', { method: 'tool_call', args: ARGS });
    expect(preview.refuse).toBe(true);
    expect(preview.violations[0]!.message).toMatch(/did not state cabin of this call/);
    const after = write(snapshot, ARGS);
    expect(after.snapshot.monitors.confirm_write!.verdict).toBe('violated');
    expect(after.snapshot.violations[0]!.message).toMatch(/did not state cabin of this call/);
  });

  it('the latest yes counts: a restatement answered by a second yes in a row confirms the call', () => {
    const snapshot = yes(yes(start(), UNSTATED_CABIN), STATED);
    expect(snapshot.trace).toEqual(['start', 'confirm']);
    expect(snapshot.answered).toEqual({ confirm: STATED });
    expect(write(snapshot, ARGS).snapshot.monitors.confirm_write!.verdict).toBe('pending');
  });

  it('a call whose arguments are not known has stated none of them', () => {
    expect(write(yes(start(), STATED), {}).snapshot.violations[0]!.message).toMatch(/did not state cabin, flights/);
  });
});

describe('grounded: the oracle', () => {
  type Event = { kind: 'yes'; grounded: boolean } | { kind: 'write' } | { kind: 'say' };
  const event = fc.oneof(fc.record({ kind: fc.constant('yes' as const), grounded: fc.boolean() }), fc.constant({ kind: 'write' as const }), fc.constant({ kind: 'say' as const }));

  /** The trace with every yes since the previous write removed before a write whose latest yes was not grounded. */
  function oracleTrace(events: readonly Event[]): string[] {
    const trace = ['start'];
    let sinceWrite: number[] = []; // positions in `trace` of the yeses since the previous write
    let latestGrounded = false;
    for (const item of events) {
      if (item.kind === 'yes') {
        latestGrounded = item.grounded;
        if (trace.at(-1) === 'confirm') continue; // a yes in a row adds no position; only what it answered changes
        sinceWrite.push(trace.length);
        trace.push('confirm');
      } else if (item.kind === 'write') {
        if (!latestGrounded) for (const position of sinceWrite) trace[position] = 'taken_out';
        sinceWrite = [];
        trace.push('write');
      } else if (trace.at(-1) !== 'say') trace.push('say');
    }
    return trace;
  }

  it('the monitor agrees with evaluateConstraint on the trace with ungrounded yeses taken out', () => {
    const constraint = workflow.definition.constraints[0]!;
    fc.assert(
      fc.property(fc.array(event, { maxLength: 14 }), (events) => {
        let snapshot = createSnapshot(workflow, { at: 0 });
        for (const item of events) {
          if (item.kind === 'yes') snapshot = transition(workflow, snapshot, { type: 'enter', state: 'confirm', at: 1, method: 'pattern', answered: item.grounded ? STATED : UNSTATED_CABIN }).snapshot;
          else if (item.kind === 'write') snapshot = transition(workflow, snapshot, { type: 'enter', state: 'write', at: 1, method: 'tool_call', args: ARGS }).snapshot;
          else snapshot = transition(workflow, snapshot, { type: 'enter', state: 'say', at: 1, method: 'pattern' }).snapshot;
        }
        expect(snapshot.monitors[constraint.name]!.verdict).toBe(evaluateConstraint(constraint as TemporalConstraint, oracleTrace(events).filter((state) => state !== 'taken_out')));
      }),
      { numRuns: 500 },
    );
  });
});

describe('grounded: through the monitor', () => {
  it("refuses a call whose yes answered other details before it runs, reading the user's messages and the call", async () => {
    const monitor = createMonitor({ workflow });
    const history = [
      { role: 'user' as const, content: 'Upgrade my flight.' },
      { role: 'assistant' as const, content: UNSTATED_CABIN },
      { role: 'user' as const, content: 'yes' },
    ];
    await monitor.beforeModel('s', { messages: history });
    const call = { id: 'w1', name: 'write_tool', args: ARGS };
    await monitor.afterModel('s', { content: '', toolCalls: [call] });
    const denied = await monitor.beforeTool('s', call);
    expect(denied).toMatchObject({ action: 'deny', constraints: ['confirm_write'] });
    expect(denied.action === 'deny' && denied.reason).toMatch(/did not state cabin/);

    await monitor.beforeModel('s', { messages: [...history, { role: 'assistant', content: STATED }, { role: 'user', content: 'ok, go ahead' }] });
    const again = { ...call, id: 'w2' };
    await monitor.afterModel('s', { content: '', toolCalls: [again] });
    expect((await monitor.beforeTool('s', again)).action).toBe('allow');
  });
});

describe('grounded: validNextStates', () => {
  const history = (answered: string) => [
    { role: 'user' as const, content: 'Upgrade my flight.' },
    { role: 'assistant' as const, content: answered },
    { role: 'user' as const, content: 'yes' },
  ];
  const moveTo = async (monitor: ReturnType<typeof createMonitor>, input?: Parameters<ReturnType<typeof createMonitor>['validNextStates']>[1]) => (await monitor.validNextStates('s', input)).moves.find((move) => move.to === 'write')!;

  it('without arguments, a grounded write is valid right after a yes; the move names the arguments the call will be checked for', async () => {
    const monitor = createMonitor({ workflow });
    await monitor.beforeModel('s', { messages: history(STATED) });
    const next = await monitor.validNextStates('s');
    expect(next.state).toBe('confirm');
    expect(next.valid).toContain('write');
    expect(await moveTo(monitor)).toEqual({ to: 'write', allowed: true, valid: true, refused: false, reasons: [], violations: [], groundedArgs: ['cabin', 'flights'] });
  });

  it('without arguments, a yes to other details still counts as a yes; the call itself is refused when it comes', async () => {
    const monitor = createMonitor({ workflow });
    await monitor.beforeModel('s', { messages: history(UNSTATED_CABIN) });
    expect(await moveTo(monitor)).toMatchObject({ valid: true, groundedArgs: ['cabin', 'flights'] });
    const call = { id: 'w1', name: 'write_tool', args: ARGS };
    await monitor.afterModel('s', { content: '', toolCalls: [call] });
    expect(await monitor.beforeTool('s', call)).toMatchObject({ action: 'deny', constraints: ['confirm_write'] });
  });

  it('without a yes, the reason says the yes must state the named arguments', async () => {
    const monitor = createMonitor({ workflow });
    await monitor.beforeModel('s', { messages: [{ role: 'user', content: 'Upgrade my flight.' }] });
    const move = await moveTo(monitor);
    expect(move).toMatchObject({ valid: false, refused: true, violations: [{ constraint: 'confirm_write', severity: 'critical' }] });
    expect(move.reasons).toEqual([expect.stringMatching(/^breaks critical constraint 'confirm_write': .*The user's yes \('confirm'\) must answer a message that states cabin, flights of the call\.$/)]);
  });

  it("with a candidate call's arguments, the yes is judged as the call's check would judge it", async () => {
    const monitor = createMonitor({ workflow });
    await monitor.beforeModel('s', { messages: history(UNSTATED_CABIN) });
    const move = await moveTo(monitor, { args: ARGS });
    expect(move).toMatchObject({ valid: false, refused: true, violations: [{ constraint: 'confirm_write', severity: 'critical' }] });
    expect(move.reasons[0]).toMatch(/did not state cabin of this call/);
    expect(move).not.toHaveProperty('groundedArgs');

    const stated = createMonitor({ workflow });
    await stated.beforeModel('s', { messages: history(STATED) });
    expect(await moveTo(stated, { args: ARGS })).toEqual({ to: 'write', allowed: true, valid: true, refused: false, reasons: [], violations: [] });
  });

  it('refuses arguments that are not an object, naming the field', async () => {
    const monitor = createMonitor({ workflow });
    for (const args of ['cabin', ['cabin'], null]) {
      const error = await monitor.validNextStates('s', { args: args as never }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect(String((error as Error).message)).toMatch(/args/);
    }
  });
});
