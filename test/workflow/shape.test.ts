import { describe, expect, it } from 'vitest';
import { validateWorkflow } from '../../src/workflow/index.js';
import { diagnosticOf, yaml } from './helpers.js';

describe('shape of a workflow document', () => {
  it('reports a missing `states` at the mapping that lacks it', () => {
    const diagnostic = diagnosticOf(yaml('name: no-states', 'description: nothing else'), 'missing-key');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'states', line: 1, column: 1 });
    expect(diagnostic.message).toBe("missing required key 'states'");
    expect(diagnostic.hint).toBe('expected a list');
  });

  it('reports an empty state list', () => {
    const diagnostic = diagnosticOf(yaml('name: empty', 'states: []'), 'empty-list');
    expect(diagnostic).toMatchObject({ path: 'states', line: 2, column: 9 });
    expect(diagnostic.message).toBe('the list is empty; it needs at least one item');
  });

  it('reports an unknown key at the key, with did-you-mean against that object', () => {
    const text = yaml(
      'name: typo', // 1
      'states:', // 2
      '  - name: start', // 3
      '    initial: true', // 4
      '    clasification:', // 5
      '      patterns: [hi]', // 6
    );
    const diagnostic = diagnosticOf(text, 'unknown-key');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'states[0].clasification', line: 5, column: 5 });
    expect(diagnostic.message).toBe("unknown key 'clasification'");
    expect(diagnostic.hint).toBe("did you mean 'classification'?");
  });

  it('lists the known keys when nothing is close', () => {
    const diagnostic = diagnosticOf(yaml('name: x', 'states: [{ name: a, initial: true }]', 'owner: me'), 'unknown-key');
    expect(diagnostic).toMatchObject({ path: 'owner', line: 3, column: 1 });
    expect(diagnostic.hint).toBe(
      'known keys: $schema, name, version, description, states, transitions, constraints, interventions, on_invalid_transition, transparent_tools',
    );
  });

  it('loads both spellings of every aliased key', () => {
    const reference = validateWorkflow(
      yaml(
        'name: long',
        'states:',
        '  - { name: a, is_initial: true }',
        '  - { name: b, is_terminal: true }',
        'transitions:',
        '  - { from_state: a, to_state: b }',
      ),
    );
    const short = validateWorkflow(
      yaml('name: long', 'states:', '  - { name: a, initial: true }', '  - { name: b, terminal: true }', 'transitions:', '  - { from: a, target: b }'),
    );
    const to = validateWorkflow(yaml('name: long', 'states:', '  - { name: a, initial: true }', '  - { name: b, terminal: true }', 'transitions:', '  - { from: a, to: b }'));
    expect(reference.ok && short.ok && to.ok).toBe(true);
    expect(short.workflow?.definition).toEqual(reference.workflow?.definition);
    expect(to.workflow?.definition).toEqual(reference.workflow?.definition);
    expect(reference.workflow?.definition.states.map((state) => [state.initial, state.terminal])).toEqual([
      [true, false],
      [false, true],
    ]);
  });

  it('refuses two spellings of one key in the same object', () => {
    const text = yaml('name: both', 'states:', '  - { name: a, initial: true }', 'transitions:', '  - { from_state: a, from: a, to: a }');
    const diagnostic = diagnosticOf(text, 'duplicate-key');
    expect(diagnostic).toMatchObject({ path: 'transitions[0].from', line: 5, column: 22 });
    expect(diagnostic.message).toBe("'from_state' and 'from' are two spellings of the same key");
    expect(diagnostic.hint).toBe("keep one of 'from_state', 'from'");
  });

  it('reports a transition without a target, naming every spelling', () => {
    const diagnostic = diagnosticOf(yaml('name: x', 'states: [{ name: a, initial: true }]', 'transitions:', '  - from: a'), 'missing-key');
    expect(diagnostic).toMatchObject({ path: 'transitions[0].to_state', line: 4, column: 5 });
    expect(diagnostic.message).toBe("missing required key 'to_state'");
    expect(diagnostic.hint).toBe("also spelled 'target' or 'to'");
  });

  it('reports a value of the wrong type with the value and the expected type', () => {
    const diagnostic = diagnosticOf(yaml('name: x', 'states:', '  - name: a', '    initial: true', '    classification: { patterns: hello }'), 'invalid-type');
    expect(diagnostic).toMatchObject({ path: 'states[0].classification.patterns', line: 5, column: 33 });
    expect(diagnostic.message).toBe('expected a list, got "hello"');
  });

  it('explains that YAML 1.2 reads yes as text', () => {
    const diagnostic = diagnosticOf(yaml('name: x', 'states:', '  - name: a', '    initial: yes'), 'invalid-type');
    expect(diagnostic).toMatchObject({ path: 'states[0].initial', line: 4, column: 14 });
    expect(diagnostic.message).toBe('expected true or false, got "yes"');
    expect(diagnostic.hint).toBe("YAML 1.2 reads 'yes' as text; write true or false");
  });

  it('reports an unknown constraint type with did-you-mean', () => {
    const text = yaml('name: x', 'states: [{ name: a, initial: true }]', 'constraints:', '  - name: reach', '    type: eventualy', '    target: a');
    const diagnostic = diagnosticOf(text, 'unknown-constraint-type');
    expect(diagnostic).toMatchObject({ severity: 'error', path: 'constraints[0].type', line: 5, column: 11 });
    expect(diagnostic.message).toBe('unknown constraint type "eventualy"');
    expect(diagnostic.hint).toBe("expected one of: eventually, never, always, precedence, response, until, next; did you mean 'eventually'?");
  });

  it('reports a severity outside warning, error and critical', () => {
    const text = yaml('name: x', 'states: [{ name: a, initial: true }]', 'constraints:', '  - { name: reach, type: eventually, target: a, severity: fatal }');
    const diagnostic = diagnosticOf(text, 'invalid-severity');
    expect(diagnostic).toMatchObject({ path: 'constraints[0].severity', line: 4, column: 59 });
    expect(diagnostic.message).toBe('invalid severity "fatal"');
    expect(diagnostic.hint).toBe('expected one of: warning, error, critical');
  });

  it('checks numeric ranges: min_confidence in [0, 1], min_similarity in (0, 1]', () => {
    const text = yaml(
      'name: x', // 1
      'states:', // 2
      '  - name: a', // 3
      '    initial: true', // 4
      '    classification: { min_similarity: 0 }', // 5
      'transitions:', // 6
      '  - { from: a, to: a, guard: { min_confidence: 1.5 } }', // 7
    );
    const { diagnostics } = validateWorkflow(text);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'out-of-range', path: 'states[0].classification.min_similarity', line: 5, column: 39, message: 'expected a number > 0, got 0' }),
      expect.objectContaining({ code: 'out-of-range', path: 'transitions[0].guard.min_confidence', line: 7, column: 48, message: 'expected a number <= 1, got 1.5' }),
    ]);
  });

  it('reports the mistake inside an intervention object, not that it is not a string', () => {
    const text = yaml('name: x', 'states: [{ name: a, initial: true }]', 'interventions:', '  nudge: { template: hi, max_aplications: 2 }');
    const diagnostic = diagnosticOf(text, 'unknown-key');
    expect(diagnostic).toMatchObject({ path: 'interventions.nudge.max_aplications', line: 4, column: 26 });
    expect(diagnostic.hint).toBe("did you mean 'max_applications'?");
  });

  it('names the accepted types when a union matches none', () => {
    const text = yaml('name: x', 'states: [{ name: a, initial: true }]', 'constraints:', '  - { name: c, type: never, target: 3 }');
    const diagnostic = diagnosticOf(text, 'invalid-type');
    expect(diagnostic).toMatchObject({ path: 'constraints[0].target', line: 4, column: 37 });
    expect(diagnostic.message).toBe('unexpected value 3');
    expect(diagnostic.hint).toBe('expected a string or a list');
  });
});
