/** The proxy and the Redis store are subpaths of their own: the core's import graph never reaches their libraries. */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEAVY = /^(fastify|undici|redis|@redis\/.*|eventsource-parser)$/;

/** Every bare import reachable from `entry` through relative imports (static ones only, when asked), with the file that makes it. */
function reachableImports(entry: string, { staticOnly = false } = {}): Array<{ file: string; specifier: string }> {
  const seen = new Set<string>();
  const found: Array<{ file: string; specifier: string }> = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    // The compiler's scanner: an import written inside a string (a template's text) is not one of this file's.
    const text = readFileSync(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const { fileName: specifier, pos } of importedFiles) {
      if (staticOnly && /import\s*\(\s*$/.test(text.slice(Math.max(0, pos - 20), pos))) continue; // an import() runs only when its code does
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else found.push({ file: relative(ROOT, file), specifier });
    }
  };
  visit(join(ROOT, entry));
  return found;
}

describe('proxy and redis boundaries', () => {
  it('the core (src/index.ts) and the CLI entry import no HTTP framework, HTTP client or Redis client', () => {
    for (const entry of ['src/index.ts', 'src/cli/main.ts']) {
      const offenders = reachableImports(entry).filter(({ specifier }) => HEAVY.test(specifier));
      // The CLI reaches the proxy only through a dynamic import inside `serve`, which this walk does follow: allow
      // exactly that command's lazy imports and nothing else.
      const unexpected = entry === 'src/cli/main.ts' ? offenders.filter(({ file }) => !file.startsWith('src/proxy/') && !file.startsWith('src/store/redis/')) : offenders;
      expect(unexpected).toEqual([]);
    }
  });

  it('the proxy loads redis only through a dynamic import, when Redis is configured', () => {
    const staticRedis = reachableImports('src/proxy/index.ts', { staticOnly: true }).filter(({ specifier }) => /^(redis|@redis\/.*)$/.test(specifier));
    expect(staticRedis).toEqual([]);
  });
});
