/**
 * The README and docs as a user receives them, from the packed tarball: every relative link resolves inside the
 * package, no page cites a file users do not have, and every TypeScript or JavaScript code block type-checks in a
 * consumer project whose `node_modules/panoptes` is the tarball. So a snippet cannot rot unnoticed. Needs the build,
 * which `npm test` runs first.
 *
 * A snippet is a fragment: the values it uses without defining (`model`, `tools`, `messages`) are declared `any` for
 * it, found from the compiler's own "cannot find name" errors; a class or type it names must be imported. Everything else is checked: the package's exports,
 * option names (object literals are checked for unknown keys) and the hosts' APIs.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONSUMER = join(ROOT, 'test/.generated/consumer');
const PACKAGE = join(CONSUMER, 'node_modules/panoptes');
const run = promisify(execFile);

/** Code fences whose language says TypeScript or JavaScript; ```ts no-check marks a block that is not meant to compile. */
const CODE = /^```(ts|typescript|js|javascript|mjs)([^\n]*)\n([\s\S]*?)^```/gm;

beforeAll(async () => {
  rmSync(CONSUMER, { recursive: true, force: true });
  mkdirSync(PACKAGE, { recursive: true });
  // --ignore-scripts: `npm pack` would run `prepare` (a second build) first.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', CONSUMER], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const { filename } = (JSON.parse(stdout) as Array<{ filename: string }>)[0]!;
  await run('tar', ['-xzf', join(CONSUMER, filename), '-C', PACKAGE, '--strip-components=1']);
}, 120_000);
afterAll(() => rmSync(CONSUMER, { recursive: true, force: true }));

/** The Markdown pages the package ships. */
function pages(): string[] {
  return ['README.md', ...readdirSync(join(PACKAGE, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];
}

describe('the docs in the tarball', () => {
  it('link only to files the package holds (or to absolute URLs)', () => {
    const dead: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(join(PACKAGE, page), 'utf8').replace(CODE, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith('#')) continue;
        const file = normalize(join(dirname(join(PACKAGE, page)), target!.split('#')[0]!));
        if (!file.startsWith(PACKAGE) || !existsSync(file)) dead.push(`${page}: ${target}`);
      }
    }
    expect(dead).toEqual([]);
  });

  it('cite no file users do not have and no issue of the project (pages, and the sources the package ships)', () => {
    const sources = ['src', 'adapters'].flatMap((folder) =>
      readdirSync(join(PACKAGE, folder), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
        .map((entry) => `${folder}${join(entry.parentPath, entry.name).slice(join(PACKAGE, folder).length)}`),
    );
    const found = [...pages(), ...sources].flatMap((page) =>
      readFileSync(join(PACKAGE, page), 'utf8')
        .split('\n')
        .flatMap((line, index) => (/DESIGN\.md|\bissue \d+|\bsession \d+\b(?![.\d])/i.test(line) ? [`${page}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it('have code blocks that type-check against the package, in a consumer project', async () => {
    const snippets: Array<{ file: string; from: string; code: string }> = [];
    for (const page of pages()) {
      let index = 0;
      for (const [, language, info, code] of readFileSync(join(PACKAGE, page), 'utf8').matchAll(CODE)) {
        index++;
        if (info!.includes('no-check')) continue;
        const extension = language!.startsWith('t') ? 'ts' : 'mts';
        snippets.push({ file: `snippets/${page.replace(/[/.]/g, '_')}_${index}.${extension}`, from: `${page}, code block ${index}`, code: code! });
      }
    }
    expect(snippets.length).toBeGreaterThan(10);
    writeFileSync(
      join(CONSUMER, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, allowJs: true, checkJs: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')] }, include: ['snippets'] }),
    );
    writeFileSync(join(CONSUMER, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    const declared = new Map<string, Set<string>>();
    const write = () => {
      rmSync(join(CONSUMER, 'snippets'), { recursive: true, force: true });
      mkdirSync(join(CONSUMER, 'snippets'));
      for (const { file, code } of snippets) {
        const names = [...(declared.get(file) ?? [])].map((name) => `declare const ${name}: any;`).join('\n');
        writeFileSync(join(CONSUMER, file), `${names}\n${code}\nexport {};\n`);
      }
    };
    // Pass 1 finds the names each fragment uses without defining; pass 2 checks everything else.
    let errors: string[] = [];
    for (let pass = 0; pass < 3; pass++) {
      write();
      errors = await typeCheck();
      let added = false;
      for (const line of errors) {
        const match = /^(snippets\/[^(]+)\(\d+,\d+\): error TS(?:2304|2552|18004): (?:Cannot find name|No value exists in scope for the shorthand property) '([^']+)'/.exec(line);
        // Only the fragment's values (`model`, `tools`): a class or type it names must be imported, as a user must.
        if (!match || !/^[a-z]/.test(match[2]!)) continue;
        const names = declared.get(match[1]!) ?? new Set<string>();
        if (!names.has(match[2]!)) added = true;
        declared.set(match[1]!, names.add(match[2]!));
      }
      if (!added) break;
    }
    const where = (line: string) => snippets.find((snippet) => line.startsWith(snippet.file))?.from ?? '';
    expect(errors.map((line) => `${where(line)}: ${line}`)).toEqual([]);
  }, 180_000);
});

/** The compiler's errors for the consumer project, one per line, paths relative to it. */
async function typeCheck(): Promise<string[]> {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const result = await run(process.execPath, [tsc, '-p', CONSUMER, '--pretty', 'false'], { cwd: CONSUMER, maxBuffer: 16 * 1024 * 1024 }).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  );
  return result
    .split('\n')
    .filter((line) => /error TS\d+/.test(line))
    .map((line) => line.replace(/\\/g, '/'));
}
