/** `panoptes serve` as users run it: the built binary in a child process, a fake upstream on loopback. */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hastyAgent, startFakeUpstream, type FakeUpstream } from '../proxy/fake-upstream.js';
import { startRedisServer } from '../store/redis-server.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOW = 'examples/workflows/customer-support.yaml';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream(hastyAgent);
});
afterAll(() => upstream.close());

/** The URL a `serve` child prints once it accepts connections. */
function listeningUrl(child: ChildProcessWithoutNullStreams): Promise<string> {
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (data: Buffer) => {
      stdout += data.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${stderr}`)));
  });
}

describe('panoptes serve', () => {
  it('starts from flags alone, prints the URL once it accepts connections, proxies, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--upstream', upstream.url, '--workflow', WORKFLOW, '--port', '0'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    const url = await listeningUrl(child);
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'Refund order A-1042.' }] }),
    });
    const body = (await response.json()) as { choices: Array<{ message: { content: string; tool_calls?: unknown } }> };
    expect(body.choices[0]!.message.tool_calls).toBeUndefined();
    expect(body.choices[0]!.message.content).toBe("I can't do that.");
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('starts with --redis, shares sessions through it, and exits 0 on SIGTERM', async () => {
    const redis = await startRedisServer();
    try {
      const child = spawn(process.execPath, [BIN, 'serve', '--upstream', upstream.url, '--workflow', WORKFLOW, '--port', '0', '--redis', redis.url], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
      const url = await listeningUrl(child);
      const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-panoptes-session-id': 'cli-redis' }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'Refund order A-1042.' }] }) });
      expect(response.status).toBe(200);
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      const keys = await new Promise<string>((resolve) => execFile('redis-cli', ['-p', String(redis.port), 'KEYS', '*cli-redis*'], (_error, stdout) => resolve(stdout)));
      expect(keys).toContain('panoptes:session:cli-redis');
    } finally {
      await redis.stop();
    }
  });

  it('exits 1 on a bad configuration, printing each problem with its place', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-serve-cli-'));
    const config = join(folder, 'panoptes.yaml');
    writeFileSync(config, `upstream: ${upstream.url}\nworkflow: nowhere.yaml\nportt: 4000\n`);
    const failure = await promisify(execFile)(process.execPath, [BIN, 'serve', '--config', config], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('Invalid proxy configuration:');
    expect(failure.stderr).toContain(`${config}:2:11 error workflow: no such file`);
    expect(failure.stderr).toContain(`${config}:3:1 error portt: unknown key 'portt'; did you mean 'port'?`);
  });

  it('exits 1 on a workflows: list with two defaults, and on a rulebase with errors, each with its place', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-serve-cli-'));
    const run = (config: string) =>
      promisify(execFile)(process.execPath, [BIN, 'serve', '--config', config], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
    const twoDefaults = join(folder, 'two.yaml');
    writeFileSync(twoDefaults, `upstream: ${upstream.url}\nworkflows:\n  - { id: a, workflow: ${join(ROOT, WORKFLOW)}, default: true }\n  - { id: b, workflow: ${join(ROOT, WORKFLOW)}, default: true }\n`);
    const failure = await run(twoDefaults);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(`${twoDefaults}:4:`);
    expect(failure.stderr).toContain("error workflows[1].default: a second default: workflow 'b' (the first is 'a' at line 3); keep default: true on one entry only");
    writeFileSync(join(folder, 'bad.rules'), 'guard issue_refund(order_id: O) :- verified(O.\n');
    const badRules = join(folder, 'rules.yaml');
    writeFileSync(badRules, `upstream: ${upstream.url}\nworkflow: ${join(ROOT, WORKFLOW)}\nrulebase: bad.rules\nport: 0\n`);
    const rules = await run(badRules);
    expect(rules.code).toBe(1);
    expect(rules.stderr).toMatch(/Invalid rulebase \(1 error\):\n {2}.*bad\.rules:1:\d+ error/);
  });

  it('exits 1 with one clear line when the local embedding model does not load', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-serve-model-'));
    // Laid out as a model (no real one can be downloaded here); its files are not one.
    const model = join(folder, 'all-MiniLM-L6-v2');
    mkdirSync(join(model, 'onnx'), { recursive: true });
    for (const file of ['config.json', 'tokenizer.json']) writeFileSync(join(model, file), '{}');
    writeFileSync(join(model, 'onnx', 'model.onnx'), 'not a graph');
    const config = join(folder, 'panoptes.yaml');
    writeFileSync(config, `upstream: ${upstream.url}\nworkflow: ${join(ROOT, WORKFLOW)}\nport: 0\nembeddings:\n  provider: transformers\n  model_path: all-MiniLM-L6-v2\n`);
    const failure = await promisify(execFile)(process.execPath, [BIN, 'serve', '--config', config], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(`Invalid proxy configuration:\ncannot load the embedding model 'all-MiniLM-L6-v2' from ${folder}: `);
    expect(failure.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);
});
