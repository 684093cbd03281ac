import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

/** What a clone and the published tarball hold (issue 13, item 10). Needs the build, which `npm test` runs first. */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string>; scripts: Record<string, string> };

beforeAll(() => {
  if (!existsSync(join(ROOT, manifest.bin.panoptes!))) throw new Error('dist/ is missing: run `npm run build` first (`npm test` does).');
});

describe('the panoptes bin in a clone', () => {
  it('is built on `npm install` and `npm ci`, so the README commands work on a fresh clone', () => {
    expect(manifest.scripts.prepare).toBe('npm run build');
  });

  it('is found by `npm exec panoptes` (what `npx panoptes` runs) inside the repository', async () => {
    const { stdout } = await run('npm', ['exec', '--offline', '--no', '--', 'panoptes', '--version'], { cwd: ROOT });
    expect(stdout.trim()).toBe(manifest.version);
  }, 60_000); // npm's own start-up: seconds on a busy 2-core machine
});

describe('the tarball', () => {
  it('ships every file its source maps point at', async () => {
    // --ignore-scripts: `npm pack` would run `prepare` (a second build) first.
    const { stdout } = await run('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
    const files = new Set(pack!.files.map((file) => file.path));
    const maps = [...files].filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(100);
    const dangling = maps.flatMap((map) => {
      const { sources, sourceRoot = '' } = JSON.parse(readFileSync(join(ROOT, map), 'utf8')) as { sources: string[]; sourceRoot?: string };
      return sources.map((source) => posix.join(posix.dirname(map), sourceRoot, source)).filter((source) => !files.has(source));
    });
    expect(dangling).toEqual([]);
    expect([...files].filter((file) => file.startsWith('test/') || /\.test(-d)?\.ts$/.test(file))).toEqual([]);
  }, 60_000);
});
