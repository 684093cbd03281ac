import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

/** The CLI is tested as users run it: the built binary, in a child process. `npm test` builds first. */
const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

async function panoptes(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('panoptes CLI (built binary)', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (\`npm test\` does).`);
  });

  it('validates the example workflows: exit 0', async () => {
    const result = await panoptes('validate', 'examples/workflows/customer-support.yaml', 'examples/workflows/airline-refund.yaml', 'examples/workflows/coding-agent.yaml');
    expect(result.stdout).toContain('✓ examples/workflows/customer-support.yaml customer-support 1.0: 6 states');
    expect(result.stdout).toMatch(/3 files: all valid \(0 errors, \d+ warnings?\)/);
    expect(result.code).toBe(0);
  });

  // Issue 13: validate read the whole file before refusing it for its size.
  it('refuses a workflow file over 1 MiB from its size: exit 1, the size and the limit', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-big-'));
    const file = join(folder, 'big.yaml');
    writeFileSync(file, `name: big\n# ${'x'.repeat(1024 * 1024)}\n`);
    try {
      const result = await panoptes('validate', file);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/error input-too-large|the workflow is 1,048,5\d\d bytes; the limit is 1,048,576 bytes/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('points at the misspelt state with file, line and column, and exits 1', async () => {
    const result = await panoptes('validate', 'test/fixtures/workflows/misspelt-state.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ test/fixtures/workflows/misspelt-state.yaml');
    expect(result.stdout).toMatch(/misspelt-state\.yaml:19:13 error constraints\[0\]\.target: .*'verify_identiy'.*did you mean 'verify_identity'\?/);
    expect(result.stdout).toContain('1 file: 1 with errors (1 error, 0 warnings)');
  });

  it('downgrades unknown states to warnings with --no-strict', async () => {
    const result = await panoptes('validate', '--no-strict', 'test/fixtures/workflows/misspelt-state.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/warning constraints\[0\]\.target/);
  });

  it('prints JSON with --json', async () => {
    const result = await panoptes('validate', '--json', 'test/fixtures/workflows/misspelt-state.yaml', 'examples/workflows/customer-support.yaml');
    const report = JSON.parse(result.stdout);
    expect(result.code).toBe(1);
    expect(report).toMatchObject({ ok: false, errors: 1 });
    expect(report.files[0]).toMatchObject({ file: 'test/fixtures/workflows/misspelt-state.yaml', ok: false });
    expect(report.files[0].diagnostics[0]).toMatchObject({ severity: 'error', path: 'constraints[0].target', line: 19, column: 13 });
    expect(report.files[1]).toMatchObject({ ok: true, workflow: { name: 'customer-support', states: 6 } });
  });

  it('lints unreachable states and constraints that can never fire or be satisfied', async () => {
    const result = await panoptes('validate', '--json', 'test/fixtures/workflows/lint-warnings.yaml');
    expect(result.code).toBe(0);
    const codes = JSON.parse(result.stdout).files[0].diagnostics.map((d: { code: string; path: string }) => `${d.code} ${d.path}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'unreachable-state states[2]',
        'unclassifiable-state states[3]',
        'constraint-never-fires constraints[0]',
        'constraint-unsatisfiable constraints[1]',
      ]),
    );
  });

  it('reports a missing file as an error', async () => {
    const result = await panoptes('validate', 'nope.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('nope.yaml error no such file; check the path, or run `panoptes init` to write a starter workflow');
  });

  it('prints a Mermaid diagram with constraints as notes', async () => {
    const result = await panoptes('graph', 'examples/workflows/customer-support.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'stateDiagram-v2',
        '  [*] --> greeting',
        '  verify_identity --> account_action',
        '  resolution --> [*]',
        '  note right of account_action',
        '    precedence verify_before_account_action (critical): verify_identity before account_action',
        '  state "greeting<br/><i>Welcome the customer</i>" as greeting',
      ]),
    );
  });

  it('explains a broken file on graph and exits 1', async () => {
    const result = await panoptes('graph', 'test/fixtures/workflows/does-not-exist.yaml');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('does-not-exist.yaml');
  });

  it('refuses to draw a file that validate rejects: exit 1, the diagnostics as validate prints them, on stderr (issue 13, item 8)', async () => {
    const file = 'test/fixtures/workflows/misspelt-state.yaml';
    const [graph, validate] = await Promise.all([panoptes('graph', file), panoptes('validate', file)]);
    expect(graph.code).toBe(1);
    expect(graph.stdout).toBe('');
    expect(graph.stderr).toBe(validate.stdout);
    expect(graph.stderr).toMatch(/misspelt-state\.yaml:19:13 error constraints\[0\]\.target: .*'verify_identiy'/);
  });

  it('draws that file with --no-strict, as validate --no-strict accepts it', async () => {
    const result = await panoptes('graph', '--no-strict', 'test/fixtures/workflows/misspelt-state.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  verify_identity --> process_refund');
  });

  it('draws states named like Mermaid keywords or differing only in punctuation as distinct, labelled nodes (issue 13, item 8)', async () => {
    const result = await panoptes('graph', 'test/fixtures/workflows/awkward-names.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        '  state "state" as state_',
        '  state "a-b" as a_b_2',
        '  note_ --> a_b_2',
        '  a_b_2 --> state_',
        '  note_ --> a_b',
        '  note right of state_',
      ]),
    );
    expect(result.stdout).not.toMatch(/^ {2}(note|state) -->/m);
  });

  it('colours nothing when the output is not a terminal', async () => {
    const result = await panoptes('validate', 'test/fixtures/workflows/misspelt-state.yaml');
    expect(result.stdout).not.toMatch(/\u001b\[/);
  });
});
