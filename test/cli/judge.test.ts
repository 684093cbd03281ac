import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { panoptes, ROOT } from './binary.js';

const dir = mkdtempSync(join(tmpdir(), 'panoptes-judge-cli-'));

describe('panoptes validate with rubric files (built binary)', () => {
  it('accepts the example rubric files beside a workflow', async () => {
    const result = await panoptes(ROOT, 'validate', 'examples/rubrics/support.rubrics.yaml', 'examples/rubrics/email.rubrics.yaml', 'examples/workflows/customer-support.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✓ examples/rubrics/email.rubrics.yaml 1 rubric: outgoing_mail (tool_call, 2 criteria)');
    expect(result.stdout).toContain('3 files: all valid');
  });

  it('reports a bad rubric file with line, field and fix, and exits 1', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'policy:\n  rules: [Never promise an amount.]\n  on_eror: deny\n');
    const result = await panoptes(ROOT, 'validate', file);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${file}:3:3 error policy.on_eror: unknown key 'on_eror'; did you mean 'on_error'?`);
  });
});
