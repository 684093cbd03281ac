import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FRAMEWORKS = /^(ai|langchain|@langchain\/.*|@ai-sdk\/.*|@modelcontextprotocol\/.*)$/;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The modules a file imports, as the compiler's scanner reads them (an import written inside a string is not one). */
function importsOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((imported) => imported.fileName);
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
