import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeErrorReason, writeFileAtomic } from '../../src/cli/write-file-atomic.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'panoptes-atomic-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic (issue 13, item 7)', () => {
  it('writes the whole file and leaves no temporary file behind', async () => {
    const file = join(dir, 'report.html');
    const text = 'x'.repeat(1_000_000);
    await writeFileAtomic(file, text);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['report.html']);
  });

  it('replaces an existing file whole', async () => {
    const file = join(dir, 'report.html');
    writeFileSync(file, 'old report, much longer than the new one');
    await writeFileAtomic(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['report.html']);
  });

  it('rejects when the directory does not exist, and creates nothing', async () => {
    await expect(writeFileAtomic(join(dir, 'no/such/dir/report.html'), 'text')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('rejects when the target cannot be replaced, leaving it as it was and no temporary file', async () => {
    const target = join(dir, 'report.html');
    mkdirSync(join(target, 'inside'), { recursive: true }); // a non-empty directory: rename cannot replace it
    await expect(writeFileAtomic(target, 'text')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['report.html']);
    expect(readdirSync(target)).toEqual(['inside']);
  });
});

describe('writeErrorReason', () => {
  it('names the problem with the target, not the temporary file', async () => {
    const error = await writeFileAtomic(join(dir, 'no/such/dir/report.html'), 'text').catch((caught: unknown) => caught);
    expect(writeErrorReason(error)).toBe('its folder does not exist');
    expect(writeErrorReason(new Error('disk on fire'))).toBe('disk on fire');
  });
});
