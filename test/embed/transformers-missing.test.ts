import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The package is installed here, so the missing-package path runs in a child process on a copy of the sources
// outside the repository, where `@huggingface/transformers` cannot be resolved: Node's own error, not a mock.
describe('createTransformersEmbedder without @huggingface/transformers', () => {
  it('constructs, then rejects at first use with install instructions', () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-no-transformers-'));
    try {
      const source = new URL('../../src/', import.meta.url);
      for (const part of ['embed', 'errors', 'diagnostics', 'clock', 'async']) cpSync(new URL(part, source), join(folder, 'src', part), { recursive: true });
      writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'module' }));
      writeFileSync(
        join(folder, 'main.ts'),
        `import { createTransformersEmbedder, MissingDependencyError } from './src/embed/index.js';
         const embedder = createTransformersEmbedder();
         const errors = [await embedder.warmUp().catch((e) => e), await embedder.embedQuery('a').catch((e) => e)];
         console.log(JSON.stringify(errors.map((e) => ({ missing: MissingDependencyError.isInstance(e), code: e.code, packageName: e.packageName, message: e.message }))));`,
      );
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
      const output = execFileSync(process.execPath, ['--import', tsx, 'main.ts'], { cwd: folder, encoding: 'utf8' });
      const [first, second] = JSON.parse(output) as { missing: boolean; code: string; packageName: string; message: string }[];
      expect(first).toEqual({
        missing: true,
        code: 'MISSING_DEPENDENCY',
        packageName: '@huggingface/transformers',
        message:
          'createTransformersEmbedder() needs the optional package `@huggingface/transformers`, which is not installed. ' +
          'Install it next to panoptes: `npm install @huggingface/transformers`, or use createLexicalEmbedder(), which needs nothing.',
      });
      expect(second).toEqual(first);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
