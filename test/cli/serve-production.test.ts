/** `panoptes serve` in production as users run it (the built binary): OpenTelemetry export over OTLP/HTTP. */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hastyAgent, startFakeUpstream, type FakeUpstream } from '../proxy/fake-upstream.js';

const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKFLOW = 'examples/workflows/customer-support.yaml';
/** The environment without any OpenTelemetry or Panoptes setting of the machine running the tests. */
const CLEAN_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_') && !name.startsWith('PANOPTES_')));

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream(hastyAgent);
});
afterAll(() => upstream.close());

/** Runs `serve` until it prints its URL (then `whileUp` runs and SIGTERM stops it) or exits; returns its exit and output. */
async function serve(args: string[], env: Record<string, string>, whileUp: (url: string) => Promise<void> = async () => {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--upstream', upstream.url, '--workflow', WORKFLOW, '--port', '0', ...args], { cwd: ROOT, env: { ...CLEAN_ENV, NO_COLOR: '1', ...env } });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string | undefined>((resolve) => {
    child.stdout.on('data', (data: Buffer) => {
      stdout += data.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exit.then(() => resolve(undefined));
  });
  if (url) {
    await whileUp(url);
    child.kill('SIGTERM');
  }
  return { code: await exit, stderr };
}

describe('panoptes serve in production', () => {
  it('exports its traces to OTEL_EXPORTER_OTLP_ENDPOINT and flushes them on SIGTERM', async () => {
    const paths: string[] = [];
    let traces = '';
    const collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
      request.on('end', () => {
        paths.push(request.url ?? '');
        traces += body;
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
      const { code } = await serve([], { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_METRICS_EXPORTER: 'none', OTEL_SERVICE_NAME: 'cli-proxy' }, async (url) => {
        const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'Refund order A-1042.' }] }) });
        expect(response.status).toBe(200);
      });
      expect(code).toBe(0);
      expect(paths).toEqual(['/v1/traces']);
      for (const text of ['POST /v1/chat/completions', 'panoptes.guard issue_refund', 'cli-proxy']) expect(traces).toContain(text);
    } finally {
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });
});
