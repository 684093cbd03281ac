import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitor, loadWorkflow } from '../../src/index.js';
import { createProxy, type Proxy } from '../../src/proxy/index.js';
import { startFakeUpstream, hastyAgent, type FakeUpstream } from '../proxy/fake-upstream.js';
import { panoptes as run, ROOT } from './binary.js';

/** `panoptes info` and `--debug` as users run them: the built binary in a child process. */
const panoptes = (...args: string[]) => run(ROOT, ...args);
const WORKFLOW = 'examples/workflows/customer-support.yaml';

describe('panoptes info <workflow>', () => {
  it('prints its states, transitions, constraints, interventions and version', async () => {
    const { code, stdout } = await panoptes('info', WORKFLOW);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`workflow customer-support 1.0  (${WORKFLOW})`);
    expect(lines).toContain('states (6): greeting (initial), identify_issue, verify_identity, account_action, share_internal_info, resolution (terminal)');
    expect(lines.some((line) => /^ {2}verify_before_account_action +critical +verify_identity before account_action/.test(line))).toBe(true);
    expect(lines.find((line) => line.startsWith('interventions ('))).toMatch(/^interventions \(\d+\): /);
    expect(lines.at(-1)).toMatch(/^on deviation: /);
  });

  it('--json prints the same as JSON', async () => {
    const { code, stdout } = await panoptes('info', WORKFLOW, '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'customer-support', version: '1.0', initialState: 'greeting', constraints: expect.arrayContaining([expect.objectContaining({ name: 'verify_before_account_action', severity: 'critical' })]) });
  });

  it('a file with errors prints them on stderr and exits 1; a missing file says so', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-info-'));
    const broken = join(folder, 'broken.yaml');
    writeFileSync(broken, 'name: broken\nstates:\n  - { name: a, initial: true }\ntransitions: [{ from: a, to: nowhere }]\n');
    const bad = await panoptes('info', broken);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain("'nowhere'");
    const missing = await panoptes('info', join(folder, 'missing.yaml'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('missing.yaml');
  });
});

describe('panoptes info <rules>', () => {
  it('prints its contexts, data, askables, rules, facts and guarded tools', async () => {
    const { code, stdout } = await panoptes('info', 'examples/airline/policy.rules');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('rulebase examples/airline/policy.rules');
    for (const heading of ['contexts (', 'data (', 'askables (', 'rules (', 'facts (', 'guarded tools (']) expect(lines.some((line) => line.startsWith(heading))).toBe(true);
    const json = JSON.parse((await panoptes('info', 'examples/airline/policy.rules', '--json')).stdout) as { guards: Array<{ tool: string }>; askables: unknown[] };
    expect(json.guards.map((guard) => guard.tool)).toContain('cancel_reservation');
    expect(json.askables.length).toBeGreaterThan(0);
  });

  it('a rules file with errors prints them and exits 1', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-info-'));
    const broken = join(folder, 'broken.rules');
    writeFileSync(broken, 'guard refund(order: O) :- undefined_thing(O).\n');
    const { code, stderr } = await panoptes('info', broken);
    expect(code).toBe(1);
    expect(stderr).toContain('broken.rules:1:');
  });
});

describe('panoptes info <proxy url>', () => {
  let upstream: FakeUpstream;
  let proxy: Proxy;
  let url: string;
  beforeAll(async () => {
    upstream = await startFakeUpstream(hastyAgent);
    const monitor = createMonitor({ workflow: await loadWorkflow(join(ROOT, WORKFLOW)), logger: { warn: () => {} } });
    proxy = createProxy({ upstream: upstream.url, monitor, port: 0, proxyKeys: ['pk-ops'], logger: { warn: () => {} } });
    ({ url } = await proxy.listen());
    // one refused tool call, so the traffic line has something to count
    await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-panoptes-key': 'pk-ops' }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'refund me' }] }) });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it("with the key: its health, workflow and traffic (from /healthz, /info and /metrics)", async () => {
    const { code, stdout } = await panoptes('info', `${url}/v1`, '--key', 'pk-ops');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`proxy ${url}: ok (store ok)`);
    expect(lines[1]).toBe('workflow customer-support 1.0');
    expect(lines).toContain('loop detection: off');
    expect(lines.find((line) => line.startsWith('traffic: '))).toMatch(/^traffic: \d+ requests, 0 blocked, 1 tool calls refused, 0 answers withheld, \d+ interventions applied$/);
  });

  it('without the key: the workflow name from /healthz, and what to pass for the rest', async () => {
    const { code, stdout } = await panoptes('info', url);
    expect(code).toBe(0);
    expect(stdout).toContain('workflow customer-support (details: GET /info needs the proxy key: pass --key or set PANOPTES_PROXY_KEY)');
  });

  it('a URL where no proxy answers exits 1, saying so', async () => {
    const { code, stderr } = await panoptes('info', 'http://127.0.0.1:9/');
    expect(code).toBe(1);
    expect(stderr).toContain('http://127.0.0.1:9/healthz did not answer as a Panoptes proxy does: ');
    expect(stderr).toContain('is `panoptes serve` running there?');
  });
});

describe('panoptes --debug', () => {
  it('logs each decision of an audit as one JSON line on stderr, and nothing without it', async () => {
    const debugged = await panoptes('--debug', 'audit', '--workflow', WORKFLOW, 'examples/transcripts/support-sessions.jsonl');
    const decisions = debugged.stderr.split('\n').filter((line) => line.startsWith('{"panoptes":"decision"')).map((line) => JSON.parse(line) as Record<string, string>);
    expect(decisions.length).toBeGreaterThan(3);
    for (const decision of decisions) expect(decision).toMatchObject({ panoptes: 'decision', time: expect.any(String), session: expect.any(String), phase: expect.any(String), verdict: expect.any(String), reason: expect.any(String) });
    expect(decisions.some((decision) => decision.verdict === 'violated' && decision.constraint !== undefined)).toBe(true);
    const plain = await panoptes('audit', '--workflow', WORKFLOW, 'examples/transcripts/support-sessions.jsonl');
    expect(plain.stderr).not.toContain('"panoptes":"decision"');
    expect(plain.stdout).toBe(debugged.stdout);
    // after the command, too
    const after = await panoptes('audit', '--workflow', WORKFLOW, 'examples/transcripts/support-sessions.jsonl', '--debug');
    expect(after.stderr).toContain('{"panoptes":"decision"');
  });
});
