import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testCommand } from '../../src/cli/commands/test.js';
import type { Output } from '../../src/cli/output.js';
import { createColors } from 'picocolors';

const WORKFLOW = fileURLToPath(new URL('../../examples/workflows/customer-support.yaml', import.meta.url));
const SESSIONS = fileURLToPath(new URL('../../examples/transcripts/support-sessions.jsonl', import.meta.url));

function capture(): Output & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (line) => lines.push(line), err: (line) => errors.push(line), colors: createColors(false) };
}

describe('panoptes test (command)', () => {
  it('draws a progress bar on a terminal for many scenarios, and clears it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-progress-'));
    for (let index = 0; index < 25; index++) writeFileSync(join(folder, `s${index}.yaml`), `conversation: [{ role: assistant, content: "hello" }]\nexpect: { final_state: greeting }\n`);
    const writes: string[] = [];
    const output = capture();
    const code = await testCommand([folder], { workflow: WORKFLOW }, output, { isTTY: true, write: (text) => writes.push(text) });
    expect(code).toBe(0);
    expect(writes.at(0)).toBe(`\rtest [█${'░'.repeat(24)}] 1/25 scenarios`);
    expect(writes.at(-2)).toBe('\rtest [█████████████████████████] 25/25 scenarios');
    expect(writes.at(-1)).toBe('\r\u001b[2K');
    const quiet: string[] = [];
    await testCommand([folder], { workflow: WORKFLOW }, capture(), { isTTY: false, write: (text) => quiet.push(text) });
    expect(quiet).toEqual([]);
  });

  it('asks which session of a .jsonl transcript to run, naming them; no scenario found exits 2', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-sessions-'));
    writeFileSync(join(folder, 'which.yaml'), `transcript: ${SESSIONS}\nexpect: {}\n`);
    writeFileSync(join(folder, 'unknown.yaml'), `transcript: { file: ${SESSIONS}, session: nope }\nexpect: {}\n`);
    const output = capture();
    expect(await testCommand([folder], { workflow: WORKFLOW }, output, { write: () => true })).toBe(1);
    expect(output.lines.join('\n')).toContain(`the transcript ${SESSIONS} has no session 'nope'; sessions: refund-never-resolved, order-status`);
    expect(output.lines.join('\n')).toContain(`the transcript ${SESSIONS} holds 2 sessions: name one with \`transcript: { file, session }\``);
    const empty = capture();
    expect(await testCommand([mkdtempSync(join(tmpdir(), 'panoptes-empty-'))], {}, empty, { write: () => true })).toBe(2);
    expect(empty.errors.at(-1)).toMatch(/^no scenario files found in /);
  });
});
