/**
 * Several workflows in one `panoptes serve`, with the official `openai` client: a request is served by the workflow
 * whose selector matches it (a header, the model name, the caller's proxy key), each enforcing its own workflow and
 * rules, and by the default otherwise. Sessions of different workflows never meet, in memory or in Redis; metrics
 * carry the workflow.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import OpenAI from 'openai';
import type { ChatCompletionMessage } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMonitor, loadWorkflow } from '../../src/index.js';
import { loadServeConfig } from '../../src/proxy/config.js';
import { createProxy, proxyKeyId, type ServeConfig } from '../../src/proxy/index.js';
import { startServe, type RunningProxy } from '../../src/proxy/serve.js';
import { startRedisServer, type RedisServer } from '../store/redis-server.js';
import { startFakeUpstream, type FakeUpstream, type ScriptedTurn } from './fake-upstream.js';
import { quietLogger, SUPPORT_WORKFLOW, TOOLS } from './helpers.js';
import { OPEN_WORKFLOW, REFUND_RULES } from './rules-helpers.js';

const REFUND: ScriptedTurn = { content: '', toolCalls: [{ id: 'call_refund', name: 'issue_refund', args: { order_id: 'A-1042' } }] };
const VERIFY: ScriptedTurn = { content: '', toolCalls: [{ id: 'call_verify', name: 'verify_identity', args: { order_id: 'A-1042' } }] };

let upstream: FakeUpstream | undefined;
let running: RunningProxy | undefined;
afterEach(async () => {
  await running?.close();
  await upstream?.close();
  running = upstream = undefined;
});

/** A config file: the support workflow is the default; `billing` (by header) and `mini` (by model) are open workflows with rules. */
function configFile(upstreamUrl: string, extra = ''): string {
  const folder = mkdtempSync(join(tmpdir(), 'panoptes-workflows-'));
  writeFileSync(join(folder, 'no-refunds.rules'), 'guard verify_identity.\n');
  const path = join(folder, 'panoptes.yaml');
  writeFileSync(
    path,
    [
      `upstream: ${upstreamUrl}`,
      'port: 0',
      `workflow: ${SUPPORT_WORKFLOW}`,
      'workflows:',
      `  - id: billing`,
      `    workflow: ${OPEN_WORKFLOW}`,
      `    rulebase: ${REFUND_RULES}`,
      '    select: { header: { name: x-team, value: billing } }',
      `  - id: mini`,
      `    workflow: ${OPEN_WORKFLOW}`,
      '    rulebase: no-refunds.rules',
      '    select: { model: "mini-*" }',
      extra,
    ].join('\n'),
  );
  return path;
}

async function serve(turns: () => ScriptedTurn, env: Record<string, string> = {}, extra = ''): Promise<{ client: OpenAI; url: string; config: ServeConfig }> {
  upstream = await startFakeUpstream(() => turns());
  const config = await loadServeConfig({ configPath: configFile(upstream.url, extra), env });
  running = await startServe(config, { logger: quietLogger() });
  return { client: new OpenAI({ baseURL: `${running.url}/v1`, apiKey: 'sk-test', maxRetries: 0 }), url: running.url, config };
}

/** What the user reads in place of a refused call; the model reads the reason in its next call's system prompt. */
const REFUSED = "I can't do that.";

/** The system prompt of the request upstream when `client` asks again: where the reasons of the last refusals go. */
async function nextSystemPrompt(client: OpenAI, options: Parameters<typeof ask>[1] = {}): Promise<string> {
  await ask(client, options);
  const body = upstream!.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
  return body.messages.flatMap((message) => (message.role === 'system' ? [String(message.content)] : [])).join('\n');
}

async function ask(client: OpenAI, { model = 'fake-model', headers = {} }: { model?: string; headers?: Record<string, string> } = {}): Promise<ChatCompletionMessage> {
  const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'I want a refund for order A-1042.' }], tools: TOOLS }, { headers: { 'x-panoptes-session-id': 's1', ...headers } });
  return completion.choices[0]!.message;
}

describe('several workflows in one proxy', () => {
  it('serves each request with the workflow its header or model selects, each with its own rules, and the default otherwise', async () => {
    const { client, url } = await serve(() => REFUND);

    // The default: the support workflow refuses a refund before verification (its own constraint, no rules).
    const byDefault = await ask(client);
    expect(byDefault.tool_calls ?? []).toEqual([]);
    expect(byDefault.content).toBe(REFUSED);

    // `billing`, by its header: the open workflow lets the refund through to its rules, which ask for the verification.
    const billing = await ask(client, { headers: { 'x-team': 'billing' } });
    expect(billing.tool_calls ?? []).toEqual([]);
    expect(billing.content).toBe(REFUSED);
    expect(await nextSystemPrompt(client, { headers: { 'x-team': 'billing' } })).toContain('Call verify_identity(order_id: "A-1042") first');

    // `mini`, by its model: its rules allow no refund at all.
    const mini = await ask(client, { model: 'mini-2' });
    expect(mini.content).toBe(REFUSED);
    expect(await nextSystemPrompt(client, { model: 'mini-2' })).toContain('No policy rule allows issue_refund');

    // A header value or model that selects nothing goes to the default.
    expect((await ask(client, { model: 'mini', headers: { 'x-team': 'Billing' } })).content).toBe(byDefault.content);

    const metrics = await (await fetch(`${url}/metrics`)).text();
    for (const workflow of ['default', 'billing', 'mini']) expect(metrics).toContain(`panoptes_proxy_refused_tool_calls_total{workflow="${workflow}"}`);
    expect(metrics).toContain('panoptes_proxy_requests_total{route="/v1/chat/completions",model="fake-model",status="200",workflow="billing"} 2');
    expect(metrics).toContain('panoptes_proxy_requests_total{route="/v1/chat/completions",model="mini-2",status="200",workflow="mini"} 2');
    expect(metrics).toMatch(/panoptes_proxy_request_duration_seconds_count\{route="\/v1\/chat\/completions",outcome="refused",workflow="billing"\} 2/);
    const health = (await (await fetch(`${url}/healthz`)).json()) as Record<string, unknown>;
    expect(health.workflows).toEqual({ default: 'customer-support', billing: 'open', mini: 'open' });
  });

  it('keeps the sessions of one id apart in each workflow: a verification in one lets no refund through in another', async () => {
    const turns = [VERIFY, REFUND];
    const { client } = await serve(() => turns.shift() ?? REFUND);
    expect((await ask(client)).tool_calls?.map((call) => call.type === 'function' && call.function.name)).toEqual(['verify_identity']);
    // Session s1 of the default workflow verified; session s1 of `billing` did not, and its rules know nothing of it.
    const billing = await ask(client, { headers: { 'x-team': 'billing' } });
    expect(billing.tool_calls ?? []).toEqual([]);
    expect(billing.content).toBe(REFUSED);
    expect(await nextSystemPrompt(client, { headers: { 'x-team': 'billing' } })).toContain('Call verify_identity(order_id: "A-1042") first');
  });
});

describe('rulebase: for the default workflow', () => {
  async function serveWith(rules: string): Promise<ServeConfig> {
    upstream = await startFakeUpstream(() => REFUND);
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-rulebase-'));
    writeFileSync(join(folder, 'policy.rules'), rules);
    writeFileSync(join(folder, 'panoptes.yaml'), `upstream: ${upstream.url}\nport: 0\nworkflow: ${OPEN_WORKFLOW}\nrulebase: policy.rules\n`);
    return loadServeConfig({ configPath: join(folder, 'panoptes.yaml'), env: {} });
  }

  it('decides the default workflow’s calls with its rules', async () => {
    running = await startServe(await serveWith('guard verify_identity.\n'), { logger: quietLogger() });
    const client = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    expect((await ask(client)).content).toBe(REFUSED);
    expect(await nextSystemPrompt(client)).toContain('No policy rule allows issue_refund');
  });

  it('refuses to start on a rulebase with errors, each at its line', async () => {
    const config = await serveWith('guard verify_identity.\nguard issue_refund(order_id: O) :- verified(O.\n');
    await expect(startServe(config, { logger: quietLogger() })).rejects.toThrow(/Invalid rulebase \(1 error\):\n {2}.*policy\.rules:2:\d+ error/);
  });
});

describe('several workflows on one Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  }, 30_000);
  afterAll(async () => {
    await redis.stop();
  });

  it('stores each workflow’s sessions under a prefix of its own, so one session id names two sessions', async () => {
    const turns = [VERIFY, REFUND];
    const { client } = await serve(() => turns.shift() ?? REFUND, { PANOPTES_REDIS__URL: redis.url, PANOPTES_REDIS__KEY_PREFIX: 'wf-test:' });
    await ask(client);
    await ask(client, { headers: { 'x-team': 'billing' } });
    const reader = createClient({ url: redis.url });
    await reader.connect();
    const keys = (await reader.keys('wf-test:*')).filter((key) => key.includes('s1')).sort();
    await reader.quit();
    expect(keys.some((key) => key.startsWith('wf-test:wf:billing:'))).toBe(true);
    expect(keys.some((key) => !key.startsWith('wf-test:wf:'))).toBe(true);
  });
});

describe('createProxy with workflows', () => {
  it('selects by the id of the proxy key the caller sent', async () => {
    upstream = await startFakeUpstream(() => REFUND);
    const logger = quietLogger();
    const open = await loadWorkflow(OPEN_WORKFLOW);
    const proxy = createProxy({
      upstream: upstream.url,
      port: 0,
      logger,
      proxyKeys: ['pk-support', 'pk-ops'],
      monitor: createMonitor({ workflow: await loadWorkflow(SUPPORT_WORKFLOW), logger }),
      workflows: [{ id: 'ops', select: { key: proxyKeyId('pk-ops') }, monitor: createMonitor({ workflow: open, logger }) }],
    });
    const { url } = await proxy.listen();
    running = { url, port: 0, proxy, close: () => proxy.close() };
    const as = (key: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-test', maxRetries: 0, defaultHeaders: { 'x-panoptes-key': key } });
    expect((await ask(as('pk-support'))).tool_calls ?? []).toEqual([]);
    expect((await ask(as('pk-ops'))).tool_calls?.map((call) => call.type === 'function' && call.function.name)).toEqual(['issue_refund']);
  });

  it('names the workflow in the logs of its failures', async () => {
    upstream = await startFakeUpstream(() => ({ content: 'Hello.' }));
    const logger = quietLogger();
    const workflow = await loadWorkflow(OPEN_WORKFLOW);
    const broken = { place: () => Promise.reject(new Error('placement down')), answered: () => Promise.resolve() };
    const proxy = createProxy({ upstream: upstream.url, port: 0, logger, monitor: createMonitor({ workflow, logger }), workflows: [{ id: 'ops', select: { model: 'ops-*' }, monitor: createMonitor({ workflow, logger }), conversations: broken }] });
    const { url } = await proxy.listen();
    running = { url, port: 0, proxy, close: () => proxy.close() };
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
    await client.chat.completions.create({ model: 'ops-1', messages: [{ role: 'user', content: 'Hi' }] });
    await client.chat.completions.create({ model: 'other', messages: [{ role: 'user', content: 'Hi' }] });
    expect(logger.lines).toEqual([expect.stringMatching(/^\[panoptes proxy\] \[workflow ops\] Placing a request by its conversation failed \(placement down\)/)]);
  });

  it('refuses a selector that could never match', async () => {
    const monitor = createMonitor({ workflow: await loadWorkflow(OPEN_WORKFLOW) });
    const upstreamUrl = 'http://127.0.0.1:1/v1';
    expect(() => createProxy({ upstream: upstreamUrl, monitor, workflows: [{ id: 'a', select: {}, monitor }] })).toThrow(/workflows\[0\]\.select.*at least one condition/s);
    expect(() => createProxy({ upstream: upstreamUrl, monitor, workflows: [{ id: 'a', select: { route: '/admin' }, monitor }] })).toThrow(/workflows\[0\]\.select\.route/);
    expect(() => createProxy({ upstream: upstreamUrl, monitor, workflows: [{ id: 'a', select: { key: proxyKeyId('k') }, monitor }] })).toThrow(/needs proxyKeys/);
  });

  it('refuses a workflow id that is taken or not a label', async () => {
    const monitor = createMonitor({ workflow: await loadWorkflow(OPEN_WORKFLOW) });
    expect(() => createProxy({ upstream: 'http://127.0.0.1:1/v1', monitor, workflows: [{ id: 'default', select: { model: 'x' }, monitor }] })).toThrow(/Give each workflow its own id: 'default' is taken by the default workflow/);
    expect(() => createProxy({ upstream: 'http://127.0.0.1:1/v1', monitor, workflows: [{ id: 'a b', select: { model: 'x' }, monitor }] })).toThrow(/workflows\[0\]\.id/);
  });
});
