/**
 * Regression: `panoptes init` printed wiring that let the forbidden call run (no guards, the rules it wrote never
 * wired), and a proxy command that could not start as printed. Each host's written wiring now runs through its real
 * host with the host's own test double (`fakeModel()`, `MockLanguageModelV3`) and refuses the refund before it runs;
 * the proxy's configuration starts `panoptes serve` as printed. The folders are made inside this package, so
 * `import 'panoptes'` in them resolves to the built package, as it does in a user's project after `npm install`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeUpstream } from '../proxy/fake-upstream.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const GENERATED = fileURLToPath(new URL('../.generated/init/', import.meta.url));
const run = promisify(execFile);

afterAll(() => rmSync(GENERATED, { recursive: true, force: true }));

async function init(host: string): Promise<{ folder: string; stdout: string }> {
  const folder = join(GENERATED, host);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  const { stdout } = await run(process.execPath, [BIN, 'init', '--host', host], { cwd: folder, env: { ...process.env, NO_COLOR: '1' } });
  return { folder, stdout };
}

describe.each(['langchain', 'langgraph', 'ai-sdk'])('init --host %s', (host) => {
  it('writes wiring that refuses the refund before it runs, through the real host, and prints how to run it', async () => {
    const { folder, stdout } = await init(host);
    expect(stdout).toContain('created panoptes/agent.mjs');
    expect(stdout).toContain('node panoptes/agent.mjs');
    const { stdout: demo, stderr } = await run(process.execPath, ['panoptes/agent.mjs'], { cwd: folder, env: { ...process.env, NO_COLOR: '1' } });
    const lines = demo.split('\n');
    // First the workflow refuses it (no lookup yet), then the rules (no confirmation yet); it never runs.
    expect(lines[0]).toMatch(/^refused {2}refund_order: The call to refund_order was refused and did not run\. It would break the rule 'lookup_before_refund'/);
    expect(lines[1]).toBe('ran      lookup_order');
    expect(lines[2]).toMatch(/^refused {2}refund_order: refund_order is not allowed yet\./);
    expect(demo).toContain('Tools that ran: lookup_order.');
    expect(stderr).toBe(''); // no Panoptes failure on the way (a session not found, a result not recorded)
  });
});

describe('init --host proxy', () => {
  it('writes a configuration that starts `panoptes serve` as printed, refusing the refund before lookup', async () => {
    const { folder, stdout } = await init('proxy');
    expect(stdout).toContain('npx panoptes serve --config panoptes/panoptes.yaml');
    const command = /npx panoptes (serve --config \S+)/.exec(stdout)![1]!.split(' ');
    const upstream = await startFakeUpstream(() => ({ content: '', toolCalls: [{ id: 'call_1', name: 'refund_order', args: { order_id: 'A1' } }] }));
    // As printed; the environment points it at a fake upstream and a free port (variables override the file).
    const child = spawn(process.execPath, [BIN, ...command], { cwd: folder, env: { ...process.env, NO_COLOR: '1', PANOPTES_UPSTREAM: upstream.url, PANOPTES_PORT: '0' } });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (data: Buffer) => {
          out += data.toString();
          const match = /listening on (\S+)/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-panoptes-session-id': 'c1' }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'Refund A1' }] }) });
      const message = ((await response.json()) as { choices: Array<{ message: { content: string; tool_calls?: unknown } }> }).choices[0]!.message;
      expect(message.tool_calls).toBeUndefined();
      expect(message.content).toBe("I can't do that.");
      // The model list, which many clients read at start, is passed through; other routes are not.
      expect((await fetch(`${url}/v1/models`)).status).toBe(200);
      expect((await fetch(`${url}/v1/files`)).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
      await upstream.close();
    }
  });
});
