import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WorkflowValidationError } from '../../src/errors/index.js';
import type { TransitionGraph } from '../../src/temporal/types.js';
import { createWorkflow, parseWorkflow, type WorkflowDefinition } from '../../src/workflow/index.js';
import { yaml } from './helpers.js';

const SUPPORT = yaml(
  'name: support', // 1
  'states:', // 2
  '  - name: greeting', // 3
  '    initial: true', // 4
  '    classification: { patterns: ["^hello", "how can i help"] }', // 5
  '    transitions: [identify_issue]', // 6
  '  - name: identify_issue', // 7
  '    transitions:', // 8
  '      - { to: verify_identity, priority: 1 }', // 9
  '      - target: escalate', // 10
  '        priority: 5', // 11
  '        guard: { min_confidence: 0.8, required_metadata: [ticket] }', // 12
  '  - name: verify_identity', // 13
  '  - name: escalate', // 14
  '  - name: resolution', // 15
  '    terminal: true', // 16
  'transitions:', // 17
  '  - from: verify_identity', // 18
  '    to: resolution', // 19
  '    guard: { expression: \'confidence >= 0.5 && metadata.verified == true\' }', // 20
  '  - { from: escalate, to: resolution }', // 21
);

describe('a compiled workflow', () => {
  const workflow = parseWorkflow(SUPPORT, { source: 'support.yaml' });

  it('exposes names, initial state and state lookups', () => {
    expect(workflow.name).toBe('support');
    expect(workflow.source).toBe('support.yaml');
    expect(workflow.initialState).toBe('greeting');
    expect(workflow.stateNames).toEqual(['greeting', 'identify_issue', 'verify_identity', 'escalate', 'resolution']);
    expect(workflow.hasState('escalate')).toBe(true);
    expect(workflow.hasState('Escalate')).toBe(false);
    expect(workflow.state('resolution')).toMatchObject({ name: 'resolution', terminal: true, initial: false });
    expect(workflow.state('nowhere')).toBeUndefined();
  });

  it('moves inline transitions into the transition list, in state order, before the top-level list', () => {
    expect(workflow.definition.transitions).toEqual([
      { from: 'greeting', to: 'identify_issue', priority: 0 },
      { from: 'identify_issue', to: 'verify_identity', priority: 1 },
      { from: 'identify_issue', to: 'escalate', priority: 5, guard: { minConfidence: 0.8, requiredMetadata: ['ticket'] } },
      { from: 'verify_identity', to: 'resolution', priority: 0, guard: { expression: 'confidence >= 0.5 && metadata.verified == true' } },
      { from: 'escalate', to: 'resolution', priority: 0 },
    ]);
  });

  it('lists transitions out of a state by priority, highest first', () => {
    expect(workflow.transitionsFrom('identify_issue').map((transition) => transition.to)).toEqual(['escalate', 'verify_identity']);
    expect(workflow.transitionsFrom('resolution')).toEqual([]);
  });

  it('gives the successors of a state with listed transitions', () => {
    expect(workflow.successors('identify_issue')).toEqual(['escalate', 'verify_identity']);
    expect(workflow.isAllowed('identify_issue', 'escalate')).toBe(true);
    expect(workflow.isAllowed('identify_issue', 'resolution')).toBe(false);
    expect(workflow.isAllowed('greeting', 'resolution')).toBe(false);
  });

  it('lets a state with no outgoing transitions listed move anywhere (DESIGN.md section 4)', () => {
    expect(workflow.successors('escalate')).toEqual(['resolution']);
    const open = parseWorkflow(yaml('name: open', 'states:', '  - { name: a, initial: true }', '  - name: b'));
    expect(open.successors('a')).toEqual(['a', 'b']);
    expect(open.isAllowed('a', 'b')).toBe(true);
  });

  it('ends the workflow at a terminal state with nothing listed', () => {
    expect(workflow.successors('resolution')).toEqual([]);
    expect(workflow.isAllowed('resolution', 'greeting')).toBe(false);
  });

  it('always allows staying, and never allows unknown states', () => {
    expect(workflow.isAllowed('greeting', 'greeting')).toBe(true);
    expect(workflow.isAllowed('greeting', 'nowhere')).toBe(false);
    expect(workflow.isAllowed('nowhere', 'greeting')).toBe(false);
    expect(workflow.successors('nowhere')).toEqual([]);
  });

  it('flags the states any state may follow: non-terminal, nothing listed', () => {
    expect(workflow.stateNames.filter((name) => workflow.isUnconstrained(name))).toEqual([]);
    const open = parseWorkflow(yaml('name: open', 'states:', '  - { name: a, initial: true }', '  - name: b', '  - { name: c, terminal: true }', 'transitions: [{ from: b, to: c }]'));
    expect(open.stateNames.filter((name) => open.isUnconstrained(name))).toEqual(['a']);
    expect(open.isUnconstrained('nowhere')).toBe(false);
  });

  it('is a transition graph for temporal code', () => {
    const graph: TransitionGraph = workflow;
    expect(graph.states).toBe(workflow.stateNames);
    expect(graph.successors('greeting')).toEqual(['identify_issue']);
  });

  it('checks min_confidence and required_metadata guards', () => {
    const [escalate] = workflow.transitionsFrom('identify_issue');
    const step = { confidence: 0.9, method: 'pattern', metadata: { ticket: 'T-1' } };
    expect(workflow.checkGuard(escalate!, step)).toBe(true);
    expect(workflow.checkGuard(escalate!, { ...step, confidence: 0.79 })).toBe(false);
    expect(workflow.checkGuard(escalate!, { ...step, metadata: {} })).toBe(false);
    expect(workflow.checkGuard(escalate!, { ...step, metadata: { ticket: undefined } })).toBe(false);
  });

  it('evaluates CEL guard expressions, false when the expression fails at run time', () => {
    const [toResolution] = workflow.transitionsFrom('verify_identity');
    expect(workflow.checkGuard(toResolution!, { confidence: 0.6, method: 'tool_call', metadata: { verified: true } })).toBe(true);
    expect(workflow.checkGuard(toResolution!, { confidence: 0.4, method: 'tool_call', metadata: { verified: true } })).toBe(false);
    expect(workflow.checkGuard(toResolution!, { confidence: 0.6, method: 'tool_call', metadata: {} })).toBe(false); // no such key
    expect(workflow.checkGuard(toResolution!, { confidence: 0.6, method: 'tool_call', metadata: { verified: () => true } })).toBe(false);
  });

  it('reads from and to in expressions, and compiles a copied transition it has not seen', () => {
    const copy = { from: 'a', to: 'b', priority: 0, guard: { expression: 'from == "a" && to == "b" && method == "pattern"' } };
    expect(workflow.checkGuard(copy, { confidence: 1, method: 'pattern', metadata: {} })).toBe(true);
    expect(workflow.checkGuard({ ...copy, guard: { expression: 'process.exit(1)' } }, { confidence: 1, method: 'pattern', metadata: {} })).toBe(false);
    expect(workflow.checkGuard({ from: 'a', to: 'b', priority: 0 }, { confidence: 0, method: 'fallback', metadata: {} })).toBe(true);
  });

  it('compiles patterns once, case-insensitive', () => {
    const patterns = workflow.patterns('greeting');
    expect(patterns.map(String)).toEqual(['/^hello/i', '/how can i help/i']);
    expect(workflow.patterns('greeting')).toBe(patterns);
    expect(patterns[1]!.test('HOW CAN I HELP you')).toBe(true);
    expect(workflow.patterns('verify_identity')).toEqual([]);
  });

  it('is immutable', () => {
    expect(Object.isFrozen(workflow)).toBe(true);
    expect(() => workflow.definition.states.push(workflow.definition.states[0]!)).toThrow(TypeError);
    expect(() => {
      (workflow.definition.states[0]!.classification.patterns as string[])[0] = 'x';
    }).toThrow(TypeError);
    expect(() => (workflow.stateNames as string[]).push('x')).toThrow(TypeError);
  });

  it('finds interventions by name, and only its own', () => {
    const withIntervention = parseWorkflow(`${SUPPORT}interventions:\n  nudge: { template: "remind: You are in {current_state}.", max_applications: 1 }\n`);
    expect(withIntervention.intervention('nudge')).toEqual({ name: 'nudge', template: 'You are in {current_state}.', strategy: 'context-reminder', maxApplications: 1 });
    expect(withIntervention.intervention('toString')).toBeUndefined();
  });

  it('reads user_message on constraints and interventions: what the user is told instead of a withheld response', () => {
    const withMessages = parseWorkflow(
      yaml(
        'name: m',
        'states: [{ name: a, initial: true }, { name: leak }]',
        'constraints: [{ name: c, type: never, target: leak, severity: critical, intervention: i, user_message: "Not that." }]',
        'interventions: { i: { template: "block: No.", user_message: "Sorry." } }',
      ),
    );
    expect(withMessages.definition.constraints[0]!.userMessage).toBe('Not that.');
    expect(withMessages.intervention('i')).toEqual({ name: 'i', template: 'No.', strategy: 'hard-block', maxApplications: 3, userMessage: 'Sorry.' });
    expect(() => parseWorkflow(yaml('name: m', 'states: [{ name: a, initial: true }]', 'constraints: [{ name: c, type: never, target: a, user_message: "" }]'))).toThrow(/user_message/);
  });

  it('points at fields of the source text', () => {
    expect(workflow.positionOf('states[3]')).toEqual({ line: 14, column: 5 });
    expect(workflow.positionOf('transitions[0].guard.expression')).toEqual({ line: 20, column: 26 });
    expect(workflow.positionOf('constraints[0]')).toBeUndefined();
  });

  it('fills defaults', () => {
    expect(workflow.definition.onDeviation).toEqual({ reaction: 'record' });
    expect(workflow.state('escalate')!.classification).toEqual({ toolCalls: [], patterns: [], exemplars: [], minSimilarity: 0.7 });
    const defaults = parseWorkflow(
      yaml('name: d', 'states: [{ name: a, initial: true }]', 'constraints: [{ name: c, type: eventually, target: a }]', 'interventions: { i: hello }'),
    );
    expect(defaults.definition.constraints[0]!.severity).toBe('error');
    expect(defaults.intervention('i')).toEqual({ name: 'i', template: 'hello', strategy: 'system-prompt-append', maxApplications: 3 });
  });
});

describe('createWorkflow', () => {
  const state = (name: string, initial = false) => ({
    name,
    initial,
    terminal: false,
    classification: { toolCalls: [], patterns: [], exemplars: [], minSimilarity: 0.7 },
  });
  const definition: WorkflowDefinition = {
    name: 'coded',
    version: '1',
    initialState: 'a',
    states: [state('a', true), state('b')],
    transitions: [{ from: 'a', to: 'b', priority: 0 }],
    constraints: [],
    interventions: {},
    onDeviation: { reaction: 'record' },
  };

  it('builds a workflow from a definition written in code, copying it', () => {
    const input = structuredClone(definition);
    const workflow = createWorkflow(input);
    input.states.push(state('c'));
    expect(workflow.stateNames).toEqual(['a', 'b']);
    expect(workflow.diagnostics).toEqual([]);
    expect(workflow.positionOf('states[0]')).toBeUndefined();
  });

  it('runs the same checks, strictly, naming definition fields', () => {
    const bad: WorkflowDefinition = {
      ...definition,
      states: [{ ...state('a', true), classification: { ...state('a').classification, patterns: ['(x+)+y'] } }, state('b')],
      transitions: [{ from: 'a', to: 'c', priority: 0 }],
    };
    let error: unknown;
    try {
      createWorkflow(bad);
    } catch (caught) {
      error = caught;
    }
    expect(WorkflowValidationError.isInstance(error)).toBe(true);
    expect((error as WorkflowValidationError).diagnostics.map(({ code, path }) => ({ code, path }))).toEqual([
      { code: 'unknown-state', path: 'transitions[0].to' },
      { code: 'catastrophic-regex', path: 'states[0].classification.patterns[0]' },
    ]);
  });

  it('refuses an initialState that is not the state marked initial', () => {
    expect(() => createWorkflow({ ...definition, initialState: 'b' })).toThrow("initialState: initialState 'b' does not have `initial: true`");
  });

  it('keeps the diagnostics it is given', () => {
    const warning = { severity: 'warning' as const, code: 'x', message: 'kept', path: '' };
    expect(createWorkflow(definition, [warning]).diagnostics).toEqual([warning]);
  });
});

describe('a workflow whose states list no transitions (issue 13)', () => {
  const state = (name: string, initial: boolean, terminal: boolean) => ({
    name,
    initial,
    terminal,
    classification: { toolCalls: [`t_${name}`], patterns: [], exemplars: [], minSimilarity: 0.7 },
  });
  const definitionOf = (names: readonly string[], terminals: ReadonlySet<string>, transitions: ReadonlyArray<{ from: string; to: string }>): WorkflowDefinition => ({
    name: 'implicit',
    version: '1',
    initialState: names[0]!,
    states: names.map((name, index) => state(name, index === 0, terminals.has(name))),
    transitions: transitions.map((transition) => ({ ...transition, priority: 0 })),
    constraints: [],
    interventions: {},
    onDeviation: { reaction: 'record' },
  });

  it('allows exactly the moves DESIGN.md section 4 allows', () => {
    const names = ['a', 'b', 'c', 'd'];
    const move = fc.record({ from: fc.constantFrom(...names), to: fc.constantFrom(...names) });
    fc.assert(
      fc.property(fc.array(move, { maxLength: 8 }), fc.subarray(names), (transitions, terminals) => {
        const workflow = createWorkflow(definitionOf(names, new Set(terminals), transitions));
        for (const from of [...names, 'nowhere']) {
          const listed = transitions.filter((transition) => transition.from === from).map((transition) => transition.to);
          const known = names.includes(from);
          const unconstrained = known && listed.length === 0 && !terminals.includes(from);
          expect(workflow.isUnconstrained(from)).toBe(unconstrained);
          for (const to of [...names, 'nowhere']) {
            const naive = known && names.includes(to) && (from === to || unconstrained || listed.includes(to));
            expect(workflow.isAllowed(from, to)).toBe(naive);
          }
          expect(new Set(workflow.successors(from))).toEqual(new Set(unconstrained ? names : known ? listed : []));
        }
      }),
    );
  });

  it('builds 20,000 of them without a set of every state per state', () => {
    // A set of successors per state held 20,000 x 20,000 entries here: several GB, or an out-of-memory crash.
    const names = Array.from({ length: 20_000 }, (_, index) => `s${index}`);
    const workflow = createWorkflow(definitionOf(names, new Set(), []));
    expect(workflow.isAllowed('s19999', 's0')).toBe(true);
    expect(workflow.isUnconstrained('s12345')).toBe(true);
    expect(workflow.successors('s3')).toBe(workflow.successors('s4')); // one shared list, not a copy per state
  });
});
