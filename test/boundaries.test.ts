import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FRAMEWORKS = /^(ai|langchain|@langchain\/.*|@ai-sdk\/.*|@modelcontextprotocol\/.*)$/;
const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

function importsOf(file: string): string[] {
  return Array.from(readFileSync(file, 'utf8').matchAll(IMPORT), (match) => match[1] ?? match[2] ?? match[3]!);
}

describe('package boundaries', () => {
  it('the core under src/ imports no agent framework', () => {
    const offenders = sourceFiles(join(ROOT, 'src')).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => FRAMEWORKS.test(specifier))
        .map((specifier) => `${relative(ROOT, file)} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  it('adapters reach the core only through src/index.ts', () => {
    const offenders = sourceFiles(join(ROOT, 'adapters')).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.includes('/src/') && !specifier.endsWith('/src/index.js'))
        .map((specifier) => `${relative(ROOT, file)} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });
});
