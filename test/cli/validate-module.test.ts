import { describe, expect, it } from 'vitest';
import { panoptes, ROOT } from './binary.js';

const FIXTURES = 'test/fixtures/extensions';

describe('panoptes validate --module', () => {
  it('knows the constraint types and strategies a module exports', async () => {
    const { code, stdout } = await panoptes(ROOT, 'validate', '--module', `${FIXTURES}/max-count.mjs`, `${FIXTURES}/lookups.yaml`);
    expect(stdout).toContain(`✓ ${FIXTURES}/lookups.yaml lookups 1.0: 3 states, 0 transitions, 1 constraint`);
    expect(code).toBe(0);
  });

  it('knows what a registry the module exports holds', async () => {
    const { code, stdout } = await panoptes(ROOT, 'validate', '--module', `${FIXTURES}/exports-registry.mjs`, `${FIXTURES}/lookups.yaml`);
    expect(stdout).toContain(`✓ ${FIXTURES}/lookups.yaml lookups 1.0`);
    expect(code).toBe(0);
  });

  it('without the module, names the unknown type and strategy and says how to provide them', async () => {
    const { code, stdout } = await panoptes(ROOT, 'validate', `${FIXTURES}/lookups.yaml`);
    expect(stdout).toContain(`${FIXTURES}/lookups.yaml:12:11 error constraints[0].type: unknown constraint type "max_count"; expected one of: eventually, never, always, precedence, response, until, next; a type of your own must be registered (defineConstraintType) in the registry the workflow is loaded with, or given to the CLI with \`--module\` (the proxy: \`modules:\`)`);
    expect(stdout).toContain(`${FIXTURES}/lookups.yaml:16:69 error interventions.stop_looking.strategy: unknown intervention strategy 'developer_note'`);
    expect(code).toBe(1);
  });

  it('knows a type the module registers on import, and checks the options against its schema', async () => {
    const { code, stdout } = await panoptes(ROOT, 'validate', '--json', '--module', `${FIXTURES}/register-on-import.mjs`, `${FIXTURES}/bad-lookups.yaml`);
    const report = JSON.parse(stdout) as { ok: boolean; files: Array<{ diagnostics: unknown[] }> };
    expect(report.ok).toBe(false);
    expect(report.files[0]!.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'invalid-options',
        message: "type 'max_count': `max`: Too small: expected number to be >=0",
        hint: "type 'max_count' rejects these options; it takes: state, max",
        path: 'constraints[0].options.max',
        source: `${FIXTURES}/bad-lookups.yaml`,
        line: 11,
        column: 36,
      },
    ]);
    expect(code).toBe(1);
  });

  it('reports a module it cannot import, and exits 1', async () => {
    const { code, stdout } = await panoptes(ROOT, 'validate', '--module', 'missing-types.mjs', `${FIXTURES}/lookups.yaml`);
    expect(stdout).toMatch(/missing-types\.mjs error cannot import the module: Cannot find module .*missing-types\.mjs.*; check the path, and that the module runs under Node on its own/);
    expect(code).toBe(1);
  });
});
