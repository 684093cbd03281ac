import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 13, item 7: the CLI with its output piped into a reader that stops early (`| head -1`). Run as users run it:
 * the built binary, in a child process. The outputs are made larger than a pipe's buffer (64 KiB on Linux), so the
 * CLI is still writing when the reader goes.
 */
const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENV = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' };
const WORKFLOWS = Array.from({ length: 1500 }, () => 'examples/workflows/customer-support.yaml'); // about 150 KB of report

/** Runs the CLI, reads its first chunk of stdout, then closes the pipe, as `head -1` does. */
function panoptesClosedEarly(...args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; first: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let first = '';
    let stderr = '';
    child.stdout.once('data', (chunk: Buffer) => {
      first = chunk.toString('utf8');
      child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, first, stderr }));
  });
}

let dir: string;
let sessions: string;
beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (\`npm test\` does).`);
  dir = mkdtempSync(join(tmpdir(), 'panoptes-cli-pipe-'));
  // 300 sessions: about 300 KB of text report. The source sessions hold one warning-level violation, so exit 0.
  const lines = readFileSync(join(ROOT, 'examples/transcripts/support-sessions.jsonl'), 'utf8').trim().split('\n');
  const many = Array.from({ length: 150 }, (_, copy) => lines.map((line) => JSON.stringify({ ...JSON.parse(line), id: `copy-${copy}-${JSON.parse(line).id}` })));
  sessions = join(dir, 'many.jsonl');
  writeFileSync(sessions, `${many.flat().join('\n')}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the CLI writing into a pipe closed early (issue 13, item 7)', () => {
  it('validate: exits quietly with its own status, no stack trace', async () => {
    const result = await panoptesClosedEarly('validate', ...WORKFLOWS);
    expect(result.first).toMatch(/^✓ examples\/workflows\/customer-support\.yaml/);
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ code: 0, signal: null });
  });

  it('validate | head -1 in a shell: one line out, nothing on stderr, exit status of the CLI 0', async () => {
    const script = `"${process.execPath}" "${BIN}" validate ${WORKFLOWS.join(' ')} | head -1; echo "status \${PIPESTATUS[0]}" >&2`;
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', script], { cwd: ROOT, env: ENV });
    expect(stdout).toMatch(/^✓ examples\/workflows\/customer-support\.yaml [^\n]*\n$/);
    expect(stderr).toBe('status 0\n');
  });

  it('audit --html: writes the whole page although stdout was closed, and exits with the audit status', async () => {
    const file = join(dir, 'report.html');
    const result = await panoptesClosedEarly('audit', '--workflow', 'examples/workflows/customer-support.yaml', '--html', file, sessions);
    expect(result.first).toMatch(/^Audit against customer-support/);
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ code: 0, signal: null });
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('copy-149-');
    expect(html.trimEnd()).toMatch(/<\/html>$/);
    expect(readdirSync(dir).sort()).toEqual(['many.jsonl', 'report.html']); // no temporary file left
  });
});
