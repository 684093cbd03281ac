import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The `*.test-d.ts` files hold `expectTypeOf` assertions that only a type check runs: vitest's `include` leaves them
 * out, and `tsc -p tsconfig.json` (`npm run typecheck`, part of `npm test`) checks them. These tests fail if a file
 * falls out of that program or the script stops running it (issue 13, item 9).
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

describe('type tests', () => {
  it('every test/**/*.test-d.ts is in the program `npm run typecheck` checks', () => {
    const typeTests = readdirSync(join(ROOT, 'test'), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.test-d.ts'))
      .map((entry) => join(entry.parentPath, entry.name));
    const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    expect(typeTests.length).toBeGreaterThanOrEqual(5);
    expect(typeTests.filter((file) => !config?.fileNames.includes(file))).toEqual([]);
  });

  it('`npm test` runs that type check', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.typecheck).toBe('tsc -p tsconfig.json --noEmit');
    expect(scripts.check).toMatch(/^npm run typecheck\b/);
    expect(scripts.test).toMatch(/^npm run check\b/);
  });
});
