import { describe, expect, it } from 'vitest';
import { PanoptesError } from '../../src/errors/index.js';
import {
  createSnapshot,
  parseWorkflow,
  previewEnter,
  takeInterventions,
  transition,
  verdictsOf,
  type WorkflowEvent,
  type WorkflowSnapshot,
} from '../../src/workflow/index.js';

const SUPPORT = `
name: support
version: "1"
states:
  - { name: greeting, initial: true }
  - { name: verify, classification: { tool_calls: [verify_identity] } }
  - { name: refund, classification: { tool_calls: [issue_refund] } }
  - { name: chat }
  - { name: internal }
  - { name: resolution, terminal: true }
transitions:
  - { from: greeting, to: verify }
  - { from: greeting, to: chat }
  - { from: chat, to: verify }
  - { from: chat, to: resolution }
  - { from: verify, to: refund, guard: { min_confidence: 0.8 } }
  - { from: verify, to: chat }
  - { from: refund, to: resolution }
  - { from: internal, to: internal }
constraints:
  - { name: verify_first, type: precedence, trigger: refund, target: verify, severity: critical, intervention: verify_first }
  - { name: no_internal, type: never, target: internal, severity: error }
  - { name: quiet, type: never, target: [chat, "!chat"], severity: warning }
  - { name: resolve, type: eventually, target: resolution, severity: warning }
interventions:
  verify_first: "Verify identity before {attempted_state}."
`;

const workflow = parseWorkflow(SUPPORT, { source: 'support.yaml' });
const start = (historyLimit?: number) => createSnapshot(workflow, { at: 0, ...(historyLimit ? { historyLimit } : {}) });
const enter = (state: string, at = 1, extra: Partial<Extract<WorkflowEvent, { type: 'enter' }>> = {}): WorkflowEvent => ({ type: 'enter', state, at, ...extra });

function run(snapshot: WorkflowSnapshot, ...states: string[]): WorkflowSnapshot {
  return states.reduce((current, state, index) => transition(workflow, current, enter(state, index + 1)).snapshot, snapshot);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

describe('createSnapshot', () => {
  it('starts in the initial state with every monitor having seen it', () => {
    const snapshot = start();
    expect(snapshot).toMatchObject({ status: 'active', workflow: 'support', state: 'greeting', trace: ['greeting'], traceLength: 1 });
    expect(snapshot).toMatchObject({ startedAt: 0, updatedAt: 0 });
    // `quiet` names every state (chat or anything but chat), so even the initial state violates it.
    expect(verdictsOf(snapshot)).toEqual({ verify_first: 'pending', no_internal: 'pending', quiet: 'violated', resolve: 'pending' });
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it('stamps each new session with its own start time, and its shared parts cannot be changed', () => {
    const first = createSnapshot(workflow, { at: 1000 });
    const second = createSnapshot(workflow, { at: 2000 });
    for (const [snapshot, at] of [[first, 1000], [second, 2000]] as const) {
      expect(snapshot).toMatchObject({ startedAt: at, updatedAt: at });
      expect(snapshot.violations).toEqual([expect.objectContaining({ constraint: 'quiet', at })]); // violated by the initial state
    }
    expect(createSnapshot(workflow, { at: 1000, historyLimit: 5 }).historyLimit).toBe(5);
    expect(() => (first.trace as string[]).push('chat')).toThrow(TypeError);
    expect(second.trace).toEqual(['greeting']);
    // Later states are entered on copies, as always.
    expect(transition(workflow, first, enter('chat')).snapshot.trace).toEqual(['greeting', 'chat']);
  });
});

describe('transition', () => {
  it('appends to the trace, and staying in a state adds nothing', () => {
    const before = start();
    const after = transition(workflow, before, enter('chat')).snapshot;
    expect(after.trace).toEqual(['greeting', 'chat']);
    const stay = transition(workflow, after, enter('chat', 2));
    expect(stay.snapshot).toBe(after);
    expect(stay.effects).toEqual([]);
  });

  it('is pure: a frozen snapshot is not mutated', () => {
    const frozen = deepFreeze(start());
    const copy = structuredClone(frozen);
    const result = transition(workflow, frozen, enter('refund'));
    expect(frozen).toEqual(copy);
    expect(result.snapshot).not.toBe(frozen);
  });

  it('records a deviation for a move the workflow does not list', () => {
    const { snapshot, effects } = transition(workflow, start(), enter('resolution', 5, { step: 3 }));
    expect(snapshot.deviations).toEqual([{ from: 'greeting', to: 'resolution', position: 2, at: 5, step: 3 }]);
    expect(effects).toContainEqual({ type: 'deviation-recorded', deviation: snapshot.deviations[0] });
    // The default policy only records: nothing is scheduled.
    expect(snapshot.interventions.pending).toEqual([]);
  });

  it('treats a failed guard as a deviation', () => {
    const verified = run(start(), 'verify');
    const low = transition(workflow, verified, enter('refund', 2, { confidence: 0.5, method: 'pattern' })).snapshot;
    expect(low.deviations).toHaveLength(1);
    const high = transition(workflow, verified, enter('refund', 2, { confidence: 0.9, method: 'pattern' })).snapshot;
    expect(high.deviations).toHaveLength(0);
  });

  it('records a critical precedence violation with its position and schedules a block', () => {
    const { snapshot, effects } = transition(workflow, run(start(), 'chat'), enter('refund', 7, { step: 2 }));
    const violation = snapshot.violations.find((record) => record.constraint === 'verify_first');
    expect(violation).toMatchObject({ type: 'precedence', severity: 'critical', position: 3, state: 'refund', at: 7, step: 2 });
    expect(violation?.message).toMatch(/refund/);
    expect(violation?.message).toMatch(/verify/);
    expect(effects).toContainEqual({ type: 'constraint-violated', violation });
    expect(snapshot.interventions.pending).toContainEqual(
      expect.objectContaining({ name: 'verify_first', reason: 'violation', block: true, severity: 'critical' }),
    );
  });

  it('schedules built-in guidance for an error without an intervention, nothing for a warning', () => {
    const snapshot = run(start(), 'internal');
    expect(snapshot.violations.map((violation) => violation.constraint)).toEqual(['quiet', 'no_internal']);
    expect(snapshot.interventions.pending.map((pending) => pending.name)).toContain('constraint:no_internal');
    expect(snapshot.interventions.pending.map((pending) => pending.name)).not.toContain('constraint:quiet');
  });

  it('flags a constraint doomed once the workflow can no longer satisfy it, and says so once', () => {
    const first = transition(workflow, start(), enter('internal'));
    expect(first.snapshot.doomed).toContain('resolve');
    expect(first.effects).toContainEqual(expect.objectContaining({ type: 'constraint-doomed', constraint: 'resolve' }));
    expect(first.snapshot.monitors.resolve!.verdict).toBe('pending'); // a prediction never changes the verdict
    const again = transition(workflow, first.snapshot, { type: 'refuse', state: 'refund', at: 2, reason: 'x', constraints: [] });
    expect(again.effects.some((effect) => effect.type === 'constraint-doomed')).toBe(false);
  });

  it('records a refused attempt without entering it, and schedules guidance (not a block) for the next call', () => {
    const before = start();
    const { snapshot, effects } = transition(workflow, before, { type: 'refuse', state: 'refund', at: 3, reason: 'verify first', constraints: ['verify_first'] });
    expect(snapshot.trace).toEqual(before.trace);
    expect(snapshot.monitors).toEqual(before.monitors);
    expect(snapshot.refusals).toEqual([{ state: 'refund', by: 'workflow', constraints: ['verify_first'], reason: 'verify first', at: 3 }]);
    expect(effects[0]).toEqual({ type: 'call-refused', refusal: snapshot.refusals[0] });
    const pending = snapshot.interventions.pending;
    expect(pending).toEqual([expect.objectContaining({ name: 'verify_first', reason: 'refusal', block: false, severity: 'critical' })]);
    expect(pending[0]!.variables).toMatchObject({ attempted_state: 'refund', current_state: 'greeting', valid_next_states: 'verify, chat' });
    expect(takeInterventions(workflow, snapshot).plan.apply).toEqual([{ name: 'verify_first', strategy: 'system-prompt-append', text: 'Verify identity before refund.' }]);
  });

  it('closes the trace: pending verdicts are decided and later events are ignored', () => {
    const open = run(start(), 'chat');
    const { snapshot, effects } = transition(workflow, open, { type: 'close', at: 9 });
    expect(snapshot.status).toBe('closed');
    expect(verdictsOf(snapshot)).toEqual({ verify_first: 'satisfied', no_internal: 'satisfied', quiet: 'violated', resolve: 'violated' });
    expect(snapshot.violations.at(-1)).toMatchObject({ constraint: 'resolve', position: 2, at: 9 });
    expect(snapshot.violations.at(-1)).not.toHaveProperty('state');
    expect(effects.at(-1)).toEqual({ type: 'session-closed', verdicts: verdictsOf(snapshot) });
    expect(transition(workflow, snapshot, enter('verify', 10)).snapshot).toBe(snapshot);
  });

  it('rejects a state the workflow does not have, naming the known ones', () => {
    const attempt = () => transition(workflow, start(), enter('refnud'));
    expect(attempt).toThrow(PanoptesError);
    expect(attempt).toThrow("Unknown state 'refnud' for workflow 'support'; known states: greeting, verify, refund, chat, internal, resolution.");
  });

  it('keeps only the last historyLimit entries while the monitors see every step', () => {
    let snapshot = start(4);
    for (let i = 0; i < 50; i++) snapshot = run(snapshot, 'chat', 'verify');
    snapshot = run(snapshot, 'refund');
    expect(snapshot.trace).toEqual(['chat', 'verify', 'chat', 'verify', 'refund'].slice(-4));
    expect(snapshot.traceLength).toBe(102);
    expect(snapshot.monitors.verify_first!.verdict).toBe('satisfied');
  });

  it('gives the same result from a snapshot that went through JSON', () => {
    const snapshot = run(start(), 'chat', 'internal');
    const revived = JSON.parse(JSON.stringify(snapshot)) as WorkflowSnapshot;
    expect(transition(workflow, revived, enter('verify', 5))).toEqual(transition(workflow, snapshot, enter('verify', 5)));
  });
});

describe("the 'withhold' event", () => {
  it('records the violations the move would make, withheld, schedules their guidance, and leaves trace and monitors alone', () => {
    const before = run(start(), 'chat');
    const { snapshot, effects } = transition(workflow, before, { type: 'withhold', state: 'internal', at: 5, step: 2 });
    expect(snapshot.trace).toEqual(before.trace);
    expect(snapshot.monitors).toBe(before.monitors);
    expect(snapshot.violations.slice(before.violations.length)).toEqual([expect.objectContaining({ constraint: 'no_internal', state: 'internal', position: 3, step: 2, withheld: true })]);
    expect(effects.map((effect) => effect.type)).toEqual(['constraint-violated', 'intervention-scheduled']);
    expect(snapshot.interventions.pending).toEqual([expect.objectContaining({ name: 'constraint:no_internal', block: false, withheld: true })]);
    expect(verdictsOf(snapshot).no_internal).toBe('pending');
  });
});

describe('previewEnter', () => {
  it('tells that entering a state would violate a critical constraint, without committing it', () => {
    const snapshot = start();
    const preview = previewEnter(workflow, snapshot, 'refund');
    expect(preview.refuse).toBe(true);
    expect(preview.allowed).toBe(false);
    expect(preview.violations).toEqual([{ constraint: 'verify_first', severity: 'critical', message: expect.stringMatching(/verify/) }]);
    expect(snapshot).toEqual(start());
    expect(previewEnter(workflow, run(snapshot, 'verify'), 'refund')).toEqual({ allowed: true, violations: [], refuse: false });
  });

  it('with seenLength, refuses a move that only a target entered after it lets through', () => {
    const verified = run(start(), 'verify'); // verify at trace position 2
    const unseen = previewEnter(workflow, verified, 'refund', { seenLength: 1 });
    expect(unseen).toEqual({
      allowed: true,
      violations: [{ constraint: 'verify_first', severity: 'critical', message: expect.stringMatching(/same model response/), unseen: true }],
      refuse: true,
    });
    expect(previewEnter(workflow, verified, 'refund', { seenLength: 2 })).toEqual({ allowed: true, violations: [], refuse: false });
  });
});

describe('takeInterventions', () => {
  it('renders what is pending, empties the queue and counts applications', () => {
    const violated = run(start(), 'internal');
    const { snapshot, plan } = takeInterventions(workflow, violated);
    expect(plan.apply.map((item) => item.name)).toEqual(['constraint:no_internal', 'doomed:resolve']);
    expect(plan.apply[0]!.text).toMatch(/no_internal/);
    expect(snapshot.interventions).toEqual({ pending: [], applications: { 'constraint:no_internal': 1, 'doomed:resolve': 1 } });
    const nothing = takeInterventions(workflow, snapshot);
    expect(nothing.snapshot).toBe(snapshot);
    expect(nothing.plan.apply).toEqual([]);
  });

  it('blocks after a critical violation, with the rendered template', () => {
    const { plan } = takeInterventions(workflow, run(start(), 'refund'));
    expect(plan.block).toEqual({ name: 'verify_first', strategy: 'hard-block', text: 'Verify identity before refund.' });
  });
});
