import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/diagnostics/index.js';
import { validateWorkflow } from '../../src/workflow/index.js';
import { diagnosticOf, yaml } from './helpers.js';

/** Three states and whatever else a test appends (lines 1-5). */
const head = (...rest: string[]) =>
  yaml(
    'name: checks', // 1
    'states:', // 2
    '  - { name: greeting, initial: true }', // 3
    '  - { name: verify_identity }', // 4
    '  - { name: resolution, terminal: true }', // 5
    ...rest,
  );

describe('initial state', () => {
  it('requires one, listing the states and suggesting `initial: true`', () => {
    const diagnostic = diagnosticOf(yaml('name: x', 'states:', '  - name: a', '  - name: b'), 'no-initial-state');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'states', line: 3, column: 3 });
    expect(diagnostic.message).toBe('no initial state among a, b');
    expect(diagnostic.hint).toBe("add `initial: true` to the state every session starts in, e.g. 'a'");
  });

  it('refuses two, naming both with their positions', () => {
    const text = yaml('name: x', 'states:', '  - name: a', '    initial: true', '  - name: b', '    is_initial: true');
    const diagnostic = diagnosticOf(text, 'multiple-initial-states');
    expect(diagnostic).toMatchObject({ path: 'states[1].is_initial', line: 6, column: 5 });
    expect(diagnostic.message).toBe("2 initial states: 'a' (line 4, column 14), 'b' (line 6, column 17)");
    expect(diagnostic.hint).toBe('exactly one state may have `initial: true`; remove it from the others');
  });
});

describe('names', () => {
  it('refuses a state defined twice, pointing at both', () => {
    const diagnostic = diagnosticOf(head('  - { name: greeting }'), 'duplicate-state');
    expect(diagnostic).toMatchObject({ path: 'states[3].name', line: 6, column: 13 });
    expect(diagnostic.message).toBe("state 'greeting' is defined twice: at line 3, column 13 and at line 6, column 13");
    expect(diagnostic.hint).toBe('rename one of them: state names must be unique');
  });

  it('reports a state defined three times once', () => {
    const { diagnostics } = validateWorkflow(head('  - { name: greeting }', '  - { name: greeting }'), { source: 'test.yaml' });
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      "test.yaml:6:13 error states[3].name: state 'greeting' is defined 3 times: at line 3, column 13, at line 6, column 13 and at line 7, column 13; rename all but one of them: state names must be unique",
    ]);
  });

  it('reports a state renamed to a name in use once: the references to its old name follow from it', () => {
    const text = yaml(
      'name: renamed', // 1
      'states:', // 2
      '  - { name: greeting, initial: true }', // 3
      '  - { name: verify }', // 4
      '  - { name: verify }', // 5 (was refund)
      'transitions:', // 6
      '  - { from: greeting, to: verify }', // 7
      '  - { from: verify, to: refund }', // 8
      'constraints:', // 9
      '  - { name: verify_first, type: precedence, trigger: refund, target: verify }', // 10
    );
    for (const strict of [true, false]) {
      const { diagnostics } = validateWorkflow(text, { source: 'test.yaml', strict });
      expect(diagnostics.map(formatDiagnostic)).toEqual([
        "test.yaml:5:13 error states[2].name: state 'verify' is defined twice: at line 4, column 13 and at line 5, column 13; rename one of them: it is probably meant to be 'refund', which 2 references use and no state defines (transitions[1].to, constraints[0].trigger)",
      ]);
    }
  });

  it('still reports an unknown state that is a typo of a defined one, beside a duplicate', () => {
    const text = head('  - { name: greeting }', 'transitions:', '  - { from: greeting, to: verify_identiy }');
    const { diagnostics } = validateWorkflow(text, { source: 'test.yaml' });
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['duplicate-state', 'unknown-state']);
    expect(diagnostics[0]!.hint).toBe('rename one of them: state names must be unique');
  });

  it('does not add "2 initial states" to a copied initial state', () => {
    const text = yaml('name: x', 'states:', '  - { name: start, initial: true }', '  - { name: start, initial: true }', '  - { name: done }');
    const { diagnostics } = validateWorkflow(text, { source: 'test.yaml' });
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['duplicate-state']);
  });

  it('refuses a constraint name used twice', () => {
    const text = head('constraints:', '  - { name: reach, type: eventually, target: resolution }', '  - { name: reach, type: never, target: greeting }');
    const diagnostic = diagnosticOf(text, 'duplicate-constraint');
    expect(diagnostic).toMatchObject({ path: 'constraints[1].name', line: 8, column: 13 });
    expect(diagnostic.message).toBe("constraint name 'reach' is already used at line 7, column 13");
  });
});

describe('references to states', () => {
  it('reports a transition to an unknown state with the known states and a suggestion', () => {
    const text = head('transitions:', '  - from_state: greeting', '    to_state: verify_identiy');
    const diagnostic = diagnosticOf(text, 'unknown-state');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'transitions[0].to_state', line: 8, column: 15 });
    expect(diagnostic.message).toBe("unknown state 'verify_identiy'");
    expect(diagnostic.hint).toBe("known states: greeting, verify_identity, resolution; did you mean 'verify_identity'?");
  });

  it('reports an unknown state in a constraint selector list, after stripping `!` and skipping `*`', () => {
    const text = head('constraints:', '  - name: stay', '    type: always', '    condition: ["*", "!greeting", resolutoin]');
    const diagnostic = diagnosticOf(text, 'unknown-state');
    expect(diagnostic).toMatchObject({ path: 'constraints[0].condition[2]', line: 9, column: 35 });
    expect(diagnostic.message).toBe("unknown state 'resolutoin'");
    expect(diagnostic.hint).toBe("known states: greeting, verify_identity, resolution; did you mean 'resolution'?");
  });

  it('reports a negated unknown state by its name', () => {
    const diagnostic = diagnosticOf(head('constraints:', '  - { name: n, type: never, target: "!nowhere" }'), 'unknown-state');
    expect(diagnostic).toMatchObject({ path: 'constraints[0].target', line: 7, column: 37 });
    expect(diagnostic.message).toBe("unknown state 'nowhere'");
  });

  it('downgrades unknown states to warnings with strict: false, and nothing else', () => {
    const text = head(
      'transitions:', // 6
      '  - { from: greeting, to: verify }', // 7
      'constraints:', // 8
      '  - { name: never_internal, type: never, target: share_internal_info }', // 9
      '  - { name: broken, type: precedence, target: greeting }', // 10
    );
    const { ok, diagnostics } = validateWorkflow(text, { strict: false });
    expect(ok).toBe(false);
    expect(diagnostics.map(({ severity, code, path, line }) => ({ severity, code, path, line }))).toEqual([
      { severity: 'warning', code: 'unknown-state', path: 'transitions[0].to', line: 7 },
      { severity: 'warning', code: 'unknown-state', path: 'constraints[0].target', line: 9 },
      { severity: 'error', code: 'missing-parameter', path: 'constraints[1].trigger', line: 10 },
    ]);
  });

  it('refuses selectors that name no state', () => {
    const text = head('constraints:', '  - { name: a, type: never, target: [] }', '  - { name: b, type: never, target: "!" }');
    const { diagnostics } = validateWorkflow(text);
    expect(diagnostics.filter((diagnostic) => diagnostic.code === 'invalid-selector')).toEqual([
      expect.objectContaining({ path: 'constraints[0].target', line: 7, column: 37, message: 'an empty list names no state' }),
      expect.objectContaining({ path: 'constraints[1].target', line: 8, column: 37, message: "'!' names no state" }),
    ]);
  });
});

describe('constraint parameters', () => {
  it('reports the parameter a type needs, at the constraint', () => {
    const text = head('constraints:', '  - name: verify_first', '    type: precedence', '    target: verify_identity');
    const diagnostic = diagnosticOf(text, 'missing-parameter');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'constraints[0].trigger', line: 7, column: 5 });
    expect(diagnostic.message).toBe("constraint 'verify_first' of type 'precedence' needs `trigger`");
    expect(diagnostic.hint).toBe('add `trigger`: the state that needs a predecessor (a state name, `!state`, `*` or a list of these)');
  });

  it('warns about a parameter the type ignores', () => {
    const text = head('constraints:', '  - { name: n, type: never, target: greeting, trigger: resolution }');
    const diagnostic = diagnosticOf(text, 'unused-parameter');
    expect(diagnostic).toMatchObject({ severity: 'warning', path: 'constraints[0].trigger', line: 7, column: 47 });
    expect(diagnostic.message).toBe("`trigger` is ignored by type 'never'");
    expect(diagnostic.hint).toBe("type 'never' reads only `target`");
    expect(validateWorkflow(text).ok).toBe(true);
  });
});

describe('references to interventions', () => {
  it('reports a constraint naming an undefined intervention', () => {
    const text = head(
      'constraints:', // 6
      '  - { name: n, type: never, target: greeting, intervention: warn_internal }', // 7
      'interventions:', // 8
      '  warn_internal_info: "block: do not"', // 9
    );
    const diagnostic = diagnosticOf(text, 'unknown-intervention');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'constraints[0].intervention', line: 7, column: 61 });
    expect(diagnostic.message).toBe("unknown intervention 'warn_internal'");
    expect(diagnostic.hint).toBe("defined interventions: warn_internal_info; did you mean 'warn_internal_info'?");
  });

  it('reports on_invalid_transition naming an undefined intervention, even with strict: false', () => {
    const text = head('on_invalid_transition: { reaction: intervene, intervention: stay_on_track }');
    const diagnostic = diagnosticOf(text, 'unknown-intervention', { strict: false });
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'on_invalid_transition.intervention', line: 6, column: 61 });
    expect(diagnostic.hint).toBe('no interventions are defined; add it under `interventions:`');
  });

  it('warns about a template variable that will never be filled', () => {
    const diagnostic = diagnosticOf(head('interventions:', '  nudge: "You are in {curent_state}."'), 'unknown-template-variable');
    expect(diagnostic).toMatchObject({ severity: 'warning', path: 'interventions.nudge', line: 7, column: 10 });
    expect(diagnostic.message).toBe("template variable '{curent_state}' is not known and will be left as written");
    expect(diagnostic.hint).toBe("did you mean 'current_state'?");
  });
});

describe('patterns', () => {
  const withPattern = (pattern: string) =>
    yaml('name: x', 'states:', '  - name: a', '    initial: true', '    classification:', `      patterns: [${JSON.stringify(pattern)}]`);

  it('reports a pattern that does not compile, with the engine message', () => {
    const diagnostic = diagnosticOf(withPattern('how (can I help'), 'invalid-regex');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'states[0].classification.patterns[0]', line: 6, column: 18 });
    expect(diagnostic.message).toBe('pattern /how (can I help/ does not compile: Invalid regular expression: /how (can I help/i: Unterminated group');
  });

  it('explains Python inline flags', () => {
    expect(diagnosticOf(withPattern('(?i)hello'), 'invalid-regex').hint).toBe(
      'JavaScript has no inline flags such as `(?i)`; remove it (patterns are already case-insensitive)',
    );
  });

  it('rejects a pattern with exponential backtracking', () => {
    const diagnostic = diagnosticOf(withPattern('(a+)+$'), 'catastrophic-regex');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'states[0].classification.patterns[0]', line: 6, column: 18 });
    expect(diagnostic.message).toBe('pattern /(a+)+$/ can backtrack catastrophically: matching it against a long run of \'A\' takes exponential time');
    expect(diagnostic.hint).toBe('rewrite it so no quantified group can match the same text in more than one way (e.g. `(a+)+` -> `a+`)');
  });

  it('warns about a pattern with polynomial backtracking and loads it', () => {
    const { ok, diagnostics, workflow } = validateWorkflow(withPattern('order\\s+\\s*number'));
    expect(ok).toBe(true);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'slow-regex',
        path: 'states[0].classification.patterns[0]',
        line: 6,
        column: 18,
        message: "pattern /order\\s+\\s*number/ can take polynomial time on a long run of ' '",
        hint: 'an equivalent pattern without the problem: order\\s+number',
      }),
    ]);
    expect(workflow?.patterns('a')).toHaveLength(1);
  });
});

describe('guard expressions', () => {
  const withGuard = (expression: string) =>
    head('transitions:', '  - from: greeting', '    to: verify_identity', `    guard: { expression: ${JSON.stringify(expression)} }`);

  it('refuses host access: process.exit(1)', () => {
    const diagnostic = diagnosticOf(withGuard('process.exit(1)'), 'unsafe-expression');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'transitions[0].guard.expression', line: 9, column: 26 });
    expect(diagnostic.message).toBe('unknown identifier \'process\' in "process.exit(1)"');
    expect(diagnostic.hint).toBe('a guard can read only confidence, method, from, to, metadata');
  });

  it('refuses host access: this.constructor', () => {
    expect(diagnosticOf(withGuard('this.constructor'), 'unsafe-expression').message).toBe('unknown identifier \'this\' in "this.constructor"');
  });

  it('refuses a function CEL does not define', () => {
    const diagnostic = diagnosticOf(withGuard('require("fs") == null'), 'unsafe-expression');
    expect(diagnostic.message).toBe("'require' is not a CEL function");
  });

  it('refuses matches() with a catastrophic or computed pattern', () => {
    expect(diagnosticOf(withGuard('to.matches("(a+)+$")'), 'unsafe-expression').message).toBe(
      'matches() pattern "(a+)+$" can backtrack catastrophically (exponential time)',
    );
    expect(diagnosticOf(withGuard('to.matches(method)'), 'unsafe-expression').message).toBe('matches() needs a literal pattern');
  });

  it('reports syntax and type errors with the CEL message', () => {
    expect(diagnosticOf(withGuard('confidence >='), 'invalid-expression').message).toBe('cannot parse "confidence >=": Unexpected token: EOF');
    expect(diagnosticOf(withGuard('method + 1 == 2'), 'invalid-expression').message).toBe('no such overload: string + int in "method + 1 == 2"');
    expect(diagnosticOf(withGuard('confidence'), 'invalid-expression').message).toBe('"confidence" gives a double, not true or false');
  });

  it('accepts expressions over the five variables', () => {
    const { ok } = validateWorkflow(withGuard('confidence >= 0.8 && method == "tool_call" && from != to && has(metadata.order_id)'));
    expect(ok).toBe(true);
  });
});
