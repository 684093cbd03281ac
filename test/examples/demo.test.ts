import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

/** The README's main job: `npm run demo` tells the story of a refusal and a corrected agent, offline. */
it('npm run demo: the refund is refused before verification, then the agent follows the workflow', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'examples/support-demo.ts'], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' },
  });
  const lines = stdout.split('\n').map((line) => line.trimEnd());
  expect(lines).toContain('panoptes  refused issue_refund before it ran: verify_before_account_action');
  expect(stdout).toMatch(/panoptes {2}added to this call \(system-prompt-append\): "You tried to act on the customer's account/);
  expect(lines).toContain('  timeline   greeting -> verify_identity -> account_action -> resolution');
  expect(stdout).toContain('No constraint was violated');
});

/** Issue 17's "done when": the demo's refused refund can be found in a trace, with its reason. */
it('npm run demo with OTEL_EXPORTER_OTLP_ENDPOINT: the refused refund arrives at an OTLP receiver with its reason', async () => {
  const bodies: Array<{ resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; traceId: string; attributes: Array<{ key: string; value: { stringValue?: string } }> }> }> }> }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'examples/support-demo.ts'], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    expect(stdout).toContain(`trace sent to ${endpoint}`);
    const spans = bodies.flatMap((body) => body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
    const root = spans.find((span) => span.name === 'support-demo.conversation')!;
    const refused = spans.find((span) => span.name === 'panoptes.guard issue_refund' && span.attributes.some((entry) => entry.key === 'panoptes.guard.result' && entry.value.stringValue === 'deny'))!;
    expect(refused.traceId).toBe(root.traceId);
    expect(refused.attributes.find((entry) => entry.key === 'panoptes.guard.reason')?.value.stringValue).toMatch(/^The call to issue_refund was refused and did not run\..*verify_identity/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
