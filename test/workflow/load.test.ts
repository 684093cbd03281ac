import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/diagnostics/index.js';
import { WorkflowValidationError } from '../../src/errors/index.js';
import { loadWorkflow, parseWorkflow, validateWorkflow } from '../../src/workflow/index.js';
import { MINIMAL } from './helpers.js';

const REFERENCE = new URL('./fixtures/reference-support.yaml', import.meta.url);

describe("the reference engine's example workflow (copied unchanged from reference/fsm-policy-engine.md)", () => {
  const text = readFileSync(REFERENCE, 'utf8');

  // Its `no_internal_info` constraint names `share_internal_info`, which is not one of its states: the reference
  // engine accepted that silently (so the `never` could never fire). Strict loading refuses it...
  it('is refused by strict loading, pointing at the undefined state', () => {
    const { ok, diagnostics } = validateWorkflow(text, { source: 'reference.yaml' });
    expect(ok).toBe(false);
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      "reference.yaml:56:13 error constraints[1].target: unknown state 'share_internal_info'; known states: greeting, identify_issue, verify_identity, process_refund, resolution",
    ]);
  });

  // ...and `strict: false` loads it with a warning.
  it('loads with strict: false, keeping the warning', () => {
    const workflow = parseWorkflow(text, { source: 'reference.yaml', strict: false });
    expect(workflow.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', code: 'unknown-state', path: 'constraints[1].target', line: 56, column: 13 })]);
    expect(workflow.definition).toMatchObject({ name: 'customer-support', version: '1.0', description: 'Customer support agent workflow', initialState: 'greeting' });
    expect(workflow.stateNames).toEqual(['greeting', 'identify_issue', 'verify_identity', 'process_refund', 'resolution']);
    expect(workflow.state('verify_identity')!.classification.toolCalls).toEqual(['lookup_customer', 'verify_identity']);
    expect(workflow.successors('verify_identity')).toEqual(['process_refund']);
    expect(workflow.definition.constraints.map(({ name, type, severity }) => [name, type, severity])).toEqual([
      ['verify_before_refund', 'precedence', 'critical'],
      ['no_internal_info', 'never', 'error'],
      ['must_resolve', 'eventually', 'warning'],
    ]);
    expect(workflow.intervention('prompt_verify_first')).toMatchObject({ strategy: 'system-prompt-append', maxApplications: 3 });
    expect(workflow.intervention('prompt_verify_first')!.template).toMatch(/^You must verify the customer's identity/);
    expect(workflow.intervention('warn_internal_info')).toEqual({
      name: 'warn_internal_info',
      template: 'Do not share internal system information with the customer.',
      strategy: 'hard-block',
      maxApplications: 3,
    });
  });

  it('loads the same with the short spellings of its keys', () => {
    const short = text
      .replaceAll('is_initial:', 'initial:')
      .replaceAll('is_terminal:', 'terminal:')
      .replaceAll('from_state:', 'from:')
      .replaceAll('to_state:', 'target:');
    expect(short).not.toContain('_state:');
    const reference = parseWorkflow(text, { strict: false });
    expect(parseWorkflow(short, { strict: false }).definition).toEqual(reference.definition);
  });
});

describe('loadWorkflow', () => {
  const directory = mkdtempSync(join(tmpdir(), 'panoptes-load-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('reads a file, using its path as the source', async () => {
    const file = join(directory, 'minimal.yaml');
    writeFileSync(file, MINIMAL);
    const workflow = await loadWorkflow(file);
    expect(workflow.source).toBe(file);
    expect(workflow.successors('start')).toEqual(['done']);
  });

  it('names the path of a missing file', async () => {
    const file = join(directory, 'missing.yaml');
    const error = await loadWorkflow(file).catch((caught: unknown) => caught);
    expect(WorkflowValidationError.isInstance(error)).toBe(true);
    expect((error as WorkflowValidationError).code).toBe('INVALID_WORKFLOW');
    expect((error as WorkflowValidationError).diagnostics).toEqual([
      { severity: 'error', code: 'file-not-found', message: 'no such file', path: '', source: file, hint: 'check the path, or run `panoptes init` to write a starter workflow' },
    ]);
    expect((error as WorkflowValidationError).message).toBe(`${file}: no such file; check the path, or run \`panoptes init\` to write a starter workflow`);
  });

  it('refuses a 5 MB file from its size, without parsing it', async () => {
    const file = join(directory, 'huge.yaml');
    const content = `${MINIMAL}# ${'x'.repeat(5 * 1024 * 1024)}\n`;
    writeFileSync(file, content);
    const error = await loadWorkflow(file).catch((caught: unknown) => caught);
    expect(WorkflowValidationError.isInstance(error)).toBe(true);
    const [diagnostic] = (error as WorkflowValidationError).diagnostics;
    expect(diagnostic).toMatchObject({ code: 'input-too-large', source: file, path: '' });
    expect(diagnostic!.message).toBe(`the workflow is ${Buffer.byteLength(content).toLocaleString('en-US')} bytes; the limit is 1,048,576 bytes`);
  });

  it('reports errors with the file name', async () => {
    const file = join(directory, 'bad.yaml');
    writeFileSync(file, MINIMAL.replace('to: done', 'to: donee'));
    const error = await loadWorkflow(file).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      `Invalid workflow (1 error):\n  ${file}:8:9 error transitions[0].to: unknown state 'donee'; known states: start, done; did you mean 'done'?`,
    );
  });
});
