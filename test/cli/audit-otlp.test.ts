import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from '../telemetry/otlp-receiver.js';

/** Run as users run it: the built binary in a child process, exporting to a bare OTLP/HTTP receiver on loopback. */
const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string; arrayValue?: { values: Array<{ stringValue?: string }> } } }>;
  events: Array<{ name: string; attributes: Array<{ key: string; value: { stringValue?: string } }> }>;
}

type OtlpBody = { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let endpoint = '';
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  endpoint = receiver.endpoint;
});
afterAll(() => receiver.close());
const bodies = () => receiver.exports as Array<{ headers: Record<string, unknown>; body: OtlpBody }>;

async function audit(...args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'audit', '--workflow', 'examples/workflows/customer-support.yaml', ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Basic%20cGs6c2s=,x-test=1' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return error as { code: number; stdout: string; stderr: string };
  }
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? value?.intValue ?? value?.arrayValue?.values.map((item) => item.stringValue);
};

describe('panoptes audit --otlp', () => {
  it('exports each session as a trace: a panoptes.audit span with the monitor spans under it, violations as events', async () => {
    const result = await audit('examples/transcripts/refund-skipped-verification.json', 'examples/transcripts/refund-clean.json', '--otlp', endpoint);
    expect(result.code).toBe(1); // the audit's own verdict: a violation
    expect(result.stderr).toMatch(/exported 2 sessions \(\d+ spans\) to http:\/\/127\.0\.0\.1/);
    expect(bodies().at(-1)?.headers).toMatchObject({ authorization: 'Basic cGs6c2s=', 'x-test': '1', 'content-type': 'application/json' });
    const spans = bodies().flatMap(({ body }) => body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
    const roots = spans.filter((span) => span.name.startsWith('panoptes.audit '));
    expect(roots).toHaveLength(2);
    expect(new Set(roots.map((root) => root.traceId)).size).toBe(2);
    const skipped = roots.find((root) => attribute(root, 'panoptes.violation_count') !== '0')!;
    expect(attribute(skipped, 'panoptes.audit.file')).toContain('refund-skipped-verification.json');
    const inTrace = spans.filter((span) => span.traceId === skipped.traceId && span !== skipped);
    expect(inTrace.length).toBeGreaterThan(1);
    const ids = new Set(spans.filter((span) => span.traceId === skipped.traceId).map((span) => span.spanId));
    for (const span of inTrace) expect(ids.has(span.parentSpanId!)).toBe(true);
    const violations = inTrace.flatMap((span) => span.events.filter((event) => event.name === 'panoptes.violation'));
    expect(violations.length).toBeGreaterThan(0);
  });

  it('an endpoint that cannot be reached: the report is still printed, and the exit code is 2', async () => {
    const result = await audit('examples/transcripts/refund-clean.json', '--otlp', 'http://127.0.0.1:9/');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--otlp: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/traces/);
  });
});
