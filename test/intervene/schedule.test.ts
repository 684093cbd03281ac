import { describe, expect, it } from 'vitest';
import {
  escalate,
  initialInterventionState,
  MAX_NOTE_CHARS,
  MAX_PENDING_NOTES,
  planInterventions,
  REFUSAL_NOTES,
  renderTemplate,
  scheduleIntervention,
  scheduleNotes,
  strategyFromTemplate,
  templateVariables,
  type PendingIntervention,
} from '../../src/intervene/index.js';
import type { InterventionDefinition } from '../../src/workflow/types.js';

const verifyFirst: InterventionDefinition = {
  name: 'verify_first',
  template: 'Verify identity before {attempted_state}.',
  strategy: 'system-prompt-append',
  maxApplications: 2,
};
const resolve = (name: string) => (name === verifyFirst.name ? verifyFirst : undefined);
const violation = (overrides: Partial<PendingIntervention> = {}): PendingIntervention => ({
  name: 'verify_first',
  reason: 'violation',
  constraint: 'verify_before_refund',
  severity: 'error',
  block: false,
  variables: { attempted_state: 'process_refund' },
  ...overrides,
});

describe('strategyFromTemplate', () => {
  it.each([
    ['Please verify.', 'system-prompt-append', 'Please verify.'],
    ['inject: Ask for the order id.', 'user-message-inject', 'Ask for the order id.'],
    ['remind:Identity pending.', 'context-reminder', 'Identity pending.'],
    ['block: Never share internal data.', 'hard-block', 'Never share internal data.'],
  ])('%j -> %s', (raw, strategy, template) => {
    expect(strategyFromTemplate(raw)).toEqual({ strategy, template });
  });
});

describe('templates', () => {
  it('fills known variables once and keeps unknown ones visible', () => {
    expect(renderTemplate('{constraint}: {details} {typo}', { constraint: 'c', details: '{constraint}' })).toBe('c: {constraint} {typo}');
    expect(templateVariables('{a} {b} {a}')).toEqual(['a', 'b']);
  });
});

describe('planInterventions', () => {
  it('renders, counts and empties the queue', () => {
    const state = scheduleIntervention(initialInterventionState(), violation());
    const plan = planInterventions(state, resolve);
    expect(plan.apply).toEqual([{ name: 'verify_first', strategy: 'system-prompt-append', text: 'Verify identity before process_refund.' }]);
    expect(plan.block).toBeUndefined();
    expect(plan.state).toEqual({ pending: [], applications: { verify_first: 1 } });
  });

  it('escalates one strategy every maxApplications applications, up to a block', () => {
    let state = initialInterventionState();
    const strategies: string[] = [];
    for (let i = 0; i < 7; i++) {
      const plan = planInterventions(scheduleIntervention(state, violation()), resolve);
      strategies.push(plan.block ? plan.block.strategy : plan.apply[0]!.strategy);
      state = plan.state;
    }
    expect(strategies).toEqual([
      'system-prompt-append',
      'system-prompt-append',
      'context-reminder',
      'context-reminder',
      'user-message-inject',
      'user-message-inject',
      'hard-block',
    ]);
  });

  it('blocks at once when the pending entry demands it (critical severity)', () => {
    const plan = planInterventions(scheduleIntervention(initialInterventionState(), violation({ block: true, severity: 'critical' })), resolve);
    expect(plan.apply).toEqual([]);
    expect(plan.block).toMatchObject({ name: 'verify_first', strategy: 'hard-block' });
  });

  it('keeps one entry per name, newest details, never downgrading a block', () => {
    let state = scheduleIntervention(initialInterventionState(), violation({ block: true }));
    state = scheduleIntervention(state, violation({ variables: { attempted_state: 'close_account' } }));
    expect(state.pending).toHaveLength(1);
    expect(state.pending[0]).toMatchObject({ block: true, variables: { attempted_state: 'close_account' } });
  });

  it('uses the default guidance for a constraint without an intervention', () => {
    const pending = violation({
      name: 'constraint:must_resolve',
      variables: { constraint: 'must_resolve', details: 'x.', current_state: 'a', valid_next_states: 'b, c' },
    });
    const plan = planInterventions(scheduleIntervention(initialInterventionState(), pending), resolve);
    expect(plan.apply[0]!.text).toBe("Workflow rule 'must_resolve' was broken: x. Continue from 'a'; the workflow allows next: b, c.");
  });

  it('escalate stops at hard-block', () => {
    expect(escalate('user-message-inject', 5)).toBe('hard-block');
    expect(escalate('context-reminder', 0)).toBe('context-reminder');
  });
});

describe('scheduleNotes', () => {
  const planOf = (state: ReturnType<typeof initialInterventionState>) => planInterventions(state, resolve);

  it('renders every note once, in order, in the system prompt, and keeps a repeated one once', () => {
    let state = scheduleNotes(initialInterventionState(), ['The call to a was refused.', 'The call to b was refused.']);
    state = scheduleNotes(state, ['The call to a was refused.']);
    const plan = planOf(state);
    expect(plan.apply).toEqual([{ name: REFUSAL_NOTES, strategy: 'system-prompt-append', text: 'The call to a was refused.\nThe call to b was refused.' }]);
    expect(plan.state).toEqual({ pending: [], applications: {} });
  });

  it(`keeps the latest ${MAX_PENDING_NOTES} and cuts each at ${MAX_NOTE_CHARS} characters`, () => {
    const texts = Array.from({ length: MAX_PENDING_NOTES + 3 }, (_unused, index) => `note ${index}`);
    const notes = planOf(scheduleNotes(initialInterventionState(), texts)).apply[0]!.text.split('\n');
    expect(notes).toEqual(texts.slice(3));
    const long = planOf(scheduleNotes(initialInterventionState(), ['x'.repeat(MAX_NOTE_CHARS * 3)])).apply[0]!.text;
    expect(long).toHaveLength(MAX_NOTE_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });

  it('never escalates or blocks, however often a session is told, and is not counted', () => {
    let state = initialInterventionState();
    for (let round = 0; round < 20; round++) {
      const plan = planOf(scheduleNotes(state, ['The call to a was refused.']));
      expect(plan.block).toBeUndefined();
      expect(plan.apply.map((intervention) => intervention.strategy)).toEqual(['system-prompt-append']);
      state = plan.state;
    }
    expect(state.applications).toEqual({});
  });

  it('leaves the state as it is for no text, or a blank one; sits beside other guidance', () => {
    const empty = initialInterventionState();
    expect(scheduleNotes(empty, [])).toBe(empty);
    expect(scheduleNotes(empty, [' '])).toBe(empty);
    const plan = planOf(scheduleNotes(scheduleIntervention(empty, violation()), ['The call to a was refused.']));
    expect(plan.apply.map((intervention) => intervention.name)).toEqual(['verify_first', REFUSAL_NOTES]);
  });
});
