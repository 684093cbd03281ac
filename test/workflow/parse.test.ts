import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/diagnostics/index.js';
import { WorkflowValidationError } from '../../src/errors/index.js';
import { parseWorkflow, validateWorkflow } from '../../src/workflow/index.js';
import { diagnosticOf, MINIMAL, yaml } from './helpers.js';

describe('parsing YAML text', () => {
  it('reports malformed YAML with the parser position', () => {
    const diagnostic = diagnosticOf(yaml('name: broken', 'states: [a, b', 'transitions: []'), 'yaml-syntax');
    expect(diagnostic).toMatchObject({ severity: 'error', source: 'test.yaml', path: '', line: 3, column: 1 });
    expect(diagnostic.message).toMatch(/flow sequence/i);
  });

  it('reports a key given twice', () => {
    const diagnostic = diagnosticOf(yaml('name: a', 'name: b', 'states: []'), 'duplicate-key');
    expect(diagnostic).toMatchObject({ line: 2, column: 1 });
    expect(diagnostic.message).toMatch(/unique/);
  });

  it('refuses a document that is a list', () => {
    const diagnostic = diagnosticOf(yaml('- name: start', '- name: done'), 'not-a-mapping');
    expect(diagnostic).toMatchObject({ path: '', line: 1, column: 1 });
    expect(diagnostic.message).toBe('a workflow document must be a mapping, got a list');
    expect(diagnostic.hint).toContain('`name:` and `states:`');
  });

  it('refuses a document that is a scalar', () => {
    const diagnostic = diagnosticOf('just some text\n', 'not-a-mapping');
    expect(diagnostic).toMatchObject({ path: '', line: 1, column: 1 });
    expect(diagnostic.message).toBe('a workflow document must be a mapping, got "just some text"');
  });

  it('refuses an empty document', () => {
    const diagnostic = diagnosticOf('# nothing here\n', 'empty-document');
    expect(diagnostic.message).toBe('the document is empty');
  });

  it('refuses a 5 MB text before parsing it, naming the size and the option', () => {
    const huge = `${MINIMAL}description: "${'x'.repeat(5 * 1024 * 1024)}"\n`;
    const diagnostic = diagnosticOf(huge, 'input-too-large');
    expect(diagnostic).toMatchObject({ severity: 'error', path: '', source: 'test.yaml' });
    expect(diagnostic.message).toBe(`the workflow is ${Buffer.byteLength(huge).toLocaleString('en-US')} bytes; the limit is 1,048,576 bytes`);
    expect(diagnostic.hint).toContain('`maxBytes`');
  });

  it('accepts a larger text when maxBytes allows it', () => {
    const padded = `${MINIMAL}description: "${'x'.repeat(2 * 1024 * 1024)}"\n`;
    expect(validateWorkflow(padded, { maxBytes: 4 * 1024 * 1024 }).ok).toBe(true);
  });

  it('rejects an invalid maxBytes option', () => {
    expect(() => validateWorkflow(MINIMAL, { maxBytes: 0 })).toThrow('Invalid option `maxBytes`: received 0.');
  });

  it('stops alias expansion bombs ("billion laughs")', () => {
    const bomb = yaml(
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
    );
    const diagnostic = diagnosticOf(bomb, 'yaml-aliases');
    expect(diagnostic.message).toContain('aliases expand more than 100 times');
  });

  it('keeps anchors, aliases and merge keys that authors use normally', () => {
    const text = yaml(
      'name: anchors',
      'states:',
      '  - name: start',
      '    initial: true',
      '    classification: &shared { patterns: [hello], min_similarity: 0.8 }',
      '  - name: done',
      '    classification:',
      '      <<: *shared',
      '      tool_calls: [close]',
    );
    const workflow = parseWorkflow(text);
    expect(workflow.state('done')?.classification).toEqual({ toolCalls: ['close'], patterns: ['hello'], exemplars: [], minSimilarity: 0.8 });
  });

  it('keeps the version as written, even when YAML reads it as a number', () => {
    expect(parseWorkflow(`version: 1.0\n${MINIMAL}`).definition.version).toBe('1.0');
    expect(validateWorkflow({ name: 'x', version: 2, states: [{ name: 'a', initial: true }] }).workflow?.definition.version).toBe('2');
    expect(parseWorkflow(MINIMAL).definition.version).toBe('1.0');
  });

  it('gives already-parsed documents the same checks, without positions', () => {
    const { ok, diagnostics } = validateWorkflow({ name: 'x', states: [{ name: 'a', initial: true, colour: 'red' }] });
    expect(ok).toBe(false);
    expect(diagnostics).toEqual([
      { severity: 'error', code: 'unknown-key', message: "unknown key 'colour'", path: 'states[0].colour', hint: expect.stringContaining('known keys: name,') },
    ]);
  });

  it('throws every error at once from parseWorkflow, formatted with file, line and column', () => {
    const text = yaml('name: two-problems', 'states:', '  - name: start', '    initial: true', '    colour: red', 'transitions:', '  - { from: start, to: nowhere }');
    const error = (() => {
      try {
        parseWorkflow(text, { source: 'two.yaml' });
      } catch (caught) {
        return caught;
      }
      throw new Error('expected parseWorkflow to throw');
    })();
    expect(WorkflowValidationError.isInstance(error)).toBe(true);
    const { diagnostics, message, code } = error as WorkflowValidationError;
    expect(code).toBe('INVALID_WORKFLOW');
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['unknown-key', 'unknown-state']);
    expect(message).toBe(
      [
        'Invalid workflow (2 errors):',
        "  two.yaml:5:5 error states[0].colour: unknown key 'colour'; known keys: name, description, is_initial, initial, is_terminal, terminal, classification, transparent, transitions, source",
        "  two.yaml:7:24 error transitions[0].to: unknown state 'nowhere'; known states: start",
      ].join('\n'),
    );
    expect(diagnostics.map(formatDiagnostic)[1]).toBe("two.yaml:7:24 error transitions[0].to: unknown state 'nowhere'; known states: start");
  });
});
