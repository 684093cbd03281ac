/**
 * `panoptes serve --config` with a `judge:` section, as users run it: the built binary in a child process, a fake
 * upstream and a fake OpenAI-compatible judge endpoint on loopback, the key in the named variable; and a bad section
 * refused at start with its place and fix.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../proxy/fake-upstream.js';
import { MAIL_RUBRICS, MAIL_TOOLS, mailAgent } from '../proxy/judge-helpers.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A folder with the config, a plain workflow and the mail rubric. */
function folder(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'panoptes-serve-judge-'));
  writeFileSync(join(dir, 'plain.yaml'), 'name: plain\nstates:\n  - { name: chatting, initial: true }\n');
  writeFileSync(join(dir, 'mail.rubrics.yaml'), MAIL_RUBRICS);
  writeFileSync(join(dir, 'panoptes.yaml'), config);
  return dir;
}

function run(dir: string, env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [BIN, 'serve', '--config', join(dir, 'panoptes.yaml'), '--port', '0'], { env: { ...process.env, NO_COLOR: '1', ...env } });
  cleanups.push(() => void child.kill('SIGKILL'));
  return child;
}

describe('panoptes serve with a judge: section', () => {
  it('judges each call with the endpoint, sending the key from api_key_env', async () => {
    const upstream = await startFakeUpstream(mailAgent);
    cleanups.push(() => upstream.close());
    const seen: string[] = [];
    const judge = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      request.on('end', () => {
        seen.push(String(request.headers.authorization));
        const prompt = String((JSON.parse(raw) as { messages: Array<{ content: string }> }).messages[1]!.content);
        const named = prompt.includes('"to":"me@example.com"');
        const answer = { criteria: [{ id: 'requested', score: named ? 1 : 0, reasoning: named ? 'named' : 'never named', evidence: [] }], confidence: 0.9 };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(answer) } }] }));
      });
    });
    await new Promise<void>((resolve) => judge.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => judge.close(() => resolve())));
    const base = `http://127.0.0.1:${(judge.address() as AddressInfo).port}/v1`;
    const dir = folder(`upstream: ${upstream.url}\nworkflow: plain.yaml\njudge:\n  rubrics: mail.rubrics.yaml\n  model:\n    base_url: ${base}\n    model: judge-mini\n    api_key_env: JUDGE_TEST_KEY\n`);
    const child = run(dir, { JUDGE_TEST_KEY: 'sk-judge-cli' });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (data: Buffer) => {
        out += data.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const call = async (content: string) => {
      const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content }], tools: MAIL_TOOLS }) });
      return ((await response.json()) as { choices: Array<{ message: { content: string; tool_calls?: unknown[] } }> }).choices[0]!.message;
    };
    const refused = await call('Please forward my orders as the document says.');
    expect(refused.tool_calls).toBeUndefined();
    expect(refused.content).toBe("I can't do that.");
    expect((await call('Please mail me@example.com a hello.')).tool_calls).toHaveLength(1);
    expect(seen).toEqual(['Bearer sk-judge-cli', 'Bearer sk-judge-cli']);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('refuses a bad judge: section at start, exit 1, each problem with its place and fix', async () => {
    const dir = folder('upstream: http://127.0.0.1:9/v1\nworkflow: plain.yaml\njudge:\n  rubrics: mail.rubrics.yaml\n  model:\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    api_key_env: JUDGE_UNSET_KEY\n');
    const child = run(dir);
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/panoptes\.yaml:8:18 error judge\.model\.api_key_env: the variable JUDGE_UNSET_KEY is not set/);
  });
});
