/** Pass-through routes, health and metrics, security (keys, Authorization), and where sessions come from. */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createMonitor, loadWorkflow } from '../../src/index.js';
import { createProxy, namedSessionOf } from '../../src/proxy/index.js';
import { createProxyMetrics } from '../../src/proxy/metrics.js';
import { hastyAgent, startFakeUpstream } from './fake-upstream.js';
import { OPENING, SECRETS_WORKFLOW, SUPPORT_WORKFLOW, json, startProxy, type Running } from './helpers.js';
import { rawRequest } from './raw-http.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('other /v1 routes', () => {
  it('passes them through unchanged, method, query, headers and body', async () => {
    running = await startProxy(hastyAgent, { proxy: { passthrough: ['/v1/models', '/v1/embeddings'] } });
    const models = await fetch(`${running.url}/v1/models?limit=2`, { headers: { authorization: 'Bearer sk-client' } });
    expect(models.status).toBe(200);
    expect(models.headers.get('x-upstream')).toBe('fake');
    expect(await json(models)).toEqual({ object: 'list', path: '/v1/models?limit=2', method: 'GET', received: '' });
    const body = JSON.stringify({ model: 'embed', input: ['a', 'b'] });
    const embeddings = await fetch(`${running.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await json(embeddings)).received).toBe(body);
    expect(running.upstream.requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-client', undefined]);
  });

  it('refuses a route passthrough does not list with a 404 naming the setting, never reaching the upstream', async () => {
    running = await startProxy(hastyAgent);
    const response = await fetch(`${running.url}/v1/models`);
    expect(response.status).toBe(404);
    const { error } = await json(response);
    expect(error.code).toBe('route_not_enabled');
    expect(error.message).toBe('The proxy does not pass GET /v1/models to the upstream: it monitors POST /v1/chat/completions, /v1/completions, /v1/responses and /v1/messages, and passes other routes only when the passthrough setting lists them (passthrough: ["/v1/models"], or ["/v1"] for every route).');
    expect(running.upstream.requests).toHaveLength(0);
  });

  it('passes by whole segments, as the path reads both to the proxy and to a lenient upstream', async () => {
    running = await startProxy(hastyAgent, { proxy: { passthrough: ['/v1/models'] } });
    const status = async (target: string) => (await rawRequest(running!.url, { method: 'GET', target })).status;
    expect(await status('/v1/models')).toBe(200);
    expect(await status('/v1/models/gpt-4o')).toBe(200);
    expect(await status('/v1/modelsx')).toBe(404);
    expect(await status('/v1/models/..;/files')).toBe(404); // /v1/files to a server that resolves `..;`
    expect(running.upstream.requests.map((request) => request.path)).toEqual(['/v1/models', '/v1/models/gpt-4o']);
  });

  it('passes a path under a generation route only by a prefix that names the route: a stored response holds withheld calls', async () => {
    running = await startProxy(hastyAgent, { proxy: { passthrough: ['/v1'] } });
    expect((await fetch(`${running.url}/v1/models`)).status).toBe(200);
    const stored = await fetch(`${running.url}/v1/responses/resp_1`);
    expect(stored.status).toBe(404);
    expect((await json(stored)).error.code).toBe('route_not_enabled');
    expect((await fetch(`${running.url}/v1/responses`)).status).toBe(405);
    await running.close();
    running = await startProxy(hastyAgent, { proxy: { passthrough: ['/v1/responses'] } });
    expect((await fetch(`${running.url}/v1/responses/resp_1`)).status).toBe(200);
    expect((await fetch(`${running.url}/v1/models`)).status).toBe(404);
  });

  it('passes routes under /v1/messages to the Anthropic upstream, and refuses them in Anthropic shape', async () => {
    const anthropic = await startFakeUpstream(hastyAgent, { wireOf: () => undefined });
    try {
      running = await startProxy(hastyAgent, { proxy: { anthropicUpstream: anthropic.url, passthrough: ['/v1/messages/count_tokens'] } });
      const counted = await fetch(`${running.url}/v1/messages/count_tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: '{"messages":[]}' });
      expect(counted.status).toBe(200);
      expect(anthropic.requests.map((request) => [request.path, request.headers['x-api-key']])).toEqual([['/v1/messages/count_tokens', 'k']]);
      const batches = await fetch(`${running.url}/v1/messages/batches`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(await json(batches)).toMatchObject({ type: 'error', error: { code: 'route_not_enabled' } });
    } finally {
      await anthropic.close();
    }
  });

  it('refuses a passthrough prefix that is no path under /v1 at start', async () => {
    const monitor = createMonitor({ workflow: await loadWorkflow(SUPPORT_WORKFLOW) });
    for (const prefix of ['/admin', 'v1/models', '/v1/../admin', '/v1/models?x=1']) {
      expect(() => createProxy({ upstream: 'http://127.0.0.1:1/v1', monitor, passthrough: [prefix] })).toThrow(/passthrough/);
    }
  });

  it('answers unknown routes outside /v1 with a 404 in OpenAI format', async () => {
    running = await startProxy(hastyAgent);
    const response = await fetch(`${running.url}/admin`);
    expect(response.status).toBe(404);
    expect((await json(response)).error.code).toBe('not_found');
  });
});

describe('chat request bodies', () => {
  it('go upstream byte for byte as the client sent them when the monitor edits nothing', async () => {
    running = await startProxy(hastyAgent);
    // Spacing, key order, a number written 1.0 and an escaped character: JSON.stringify would change each.
    const sent = '{ "messages": [ {"role": "user", "content": "Hi, caf\\u00e9 order A-1042"} ],\n  "model": "x", "temperature": 1.0 }';
    const response = await fetch(`${running.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: sent });
    expect(response.status).toBe(200);
    expect(running.upstream.requests[0]!.raw).toBe(sent);
  });

  it('are sent re-serialised once an intervention edited them', async () => {
    running = await startProxy(hastyAgent);
    await running.client.chat.completions.create({ model: 'x', messages: OPENING }, { headers: { 'x-panoptes-session-id': 's1' } }); // its refund is refused
    const sent = JSON.stringify({ model: 'x', temperature: 1.0, messages: OPENING });
    await fetch(`${running.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-panoptes-session-id': 's1' }, body: sent });
    const edited = running.upstream.requests[1]!;
    expect(edited.raw).not.toBe(sent);
    expect(edited.body).toMatchObject({ model: 'x', temperature: 1 });
    expect(String(edited.body!.messages[0]!.content)).toContain('[WORKFLOW GUIDANCE]');
  });

  it('refuse prototype poisoning with a 400, as Fastify does', async () => {
    running = await startProxy(hastyAgent);
    const response = await fetch(`${running.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages": [], "__proto__": {"polluted": true}}' });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ code: 'invalid_json', message: "The request body is not valid JSON: Body is not valid JSON but content-type is set to 'application/json'" });
    expect(running.upstream.requests).toHaveLength(0);
  });
});

describe('health and metrics', () => {
  it('escape label values in the Prometheus text', () => {
    const metrics = createProxyMetrics();
    metrics.add('c', { plain: 'ok', odd: 'a"b\\c\nd' });
    metrics.add('c', { plain: 'ok', odd: 'a"b\\c\nd' });
    expect(metrics.render()).toContain('c{plain="ok",odd="a\\"b\\\\c\\nd"} 2');
  });


  it('reports ok, then degraded when the store stops answering; metrics count requests and refusals', async () => {
    let healthy = true;
    running = await startProxy(hastyAgent, { proxy: { storeHealthy: () => healthy } });
    expect(await json(await fetch(`${running.url}/healthz`))).toEqual({ status: 'ok', store: 'ok', workflow: 'customer-support' });
    healthy = false;
    const degraded = await fetch(`${running.url}/healthz`);
    expect(degraded.status).toBe(200); // the proxy still serves (fail-open): a load balancer must not take it out
    expect((await json(degraded)).status).toBe('degraded');

    await running.client.chat.completions.create({ model: 'x', messages: OPENING });
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toContain('panoptes_proxy_requests_total{route="/v1/chat/completions",model="x",status="200"} 1');
    expect(metrics).toContain('panoptes_proxy_refused_tool_calls_total 1');
    expect(metrics).toContain('# TYPE panoptes_proxy_store_up gauge\npanoptes_proxy_store_up 0');
  });
});

describe('security', () => {
  it('forwards Authorization unchanged and never logs it', async () => {
    running = await startProxy(hastyAgent, { apiKey: 'sk-very-secret-123' });
    await running.client.chat.completions.create({ model: 'x', messages: OPENING });
    expect(running.upstream.requests[0]!.headers.authorization).toBe('Bearer sk-very-secret-123');
    await fetch(`${running.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-very-secret-123', 'content-type': 'application/json' }, body: '{bad' });
    expect(running.logger.lines.join('\n')).not.toContain('sk-very-secret-123');
  });

  it('with proxy keys, refuses unknown callers with 401 and strips the key before the upstream', async () => {
    running = await startProxy(hastyAgent, { proxy: { proxyKeys: ['pk-team-a'] } });
    const refused = await running.client.chat.completions.create({ model: 'x', messages: OPENING }).catch((error: { status?: number; code?: string }) => error);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_proxy_key' });
    const wrong = await fetch(`${running.url}/v1/models`, { headers: { 'x-panoptes-key': 'pk-team-b' } });
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error.message).toBe("Missing or unknown proxy key: send one of the proxy's keys in the x-panoptes-key header.");
    expect(running.upstream.requests).toHaveLength(0);

    await running.client.chat.completions.create({ model: 'x', messages: OPENING }, { headers: { 'x-panoptes-key': 'pk-team-a' } });
    expect(running.upstream.requests).toHaveLength(1);
    expect(running.upstream.requests[0]!.headers['x-panoptes-key']).toBeUndefined();
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200); // health needs no key
  });
});

describe('session ids', () => {
  const body = (extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'U' }], ...extra });

  it('follow the reference order: headers, metadata, user, thread_id; none without an id', () => {
    const all = { metadata: { session_id: 'm1', panoptes_session_id: 'm2', run_id: 'm3' }, user: 'u', thread_id: 't' };
    expect(namedSessionOf({ 'x-panoptes-session-id': 'h1', 'x-session-id': 'h2' }, body(all))).toEqual({ sessionId: 'h1', source: 'header:x-panoptes-session-id' });
    expect(namedSessionOf({ 'x-session-id': 'h2' }, body(all))).toEqual({ sessionId: 'h2', source: 'header:x-session-id' });
    expect(namedSessionOf({}, body(all))).toEqual({ sessionId: 'm1', source: 'metadata.session_id' });
    expect(namedSessionOf({}, body({ ...all, metadata: { panoptes_session_id: 'm2', run_id: 'm3' } }))).toEqual({ sessionId: 'm2', source: 'metadata.panoptes_session_id' });
    expect(namedSessionOf({}, body({ ...all, metadata: { run_id: 'm3' } }))).toEqual({ sessionId: 'm3', source: 'metadata.run_id' });
    expect(namedSessionOf({}, body({ user: 'u', thread_id: 't' }))).toEqual({ sessionId: 'u', source: 'user' });
    expect(namedSessionOf({}, body({ thread_id: 't', user: '' }))).toEqual({ sessionId: 't', source: 'thread_id' });
    expect(namedSessionOf({}, body())).toBeUndefined();
    expect(namedSessionOf({ 'x-session-id': 'x'.repeat(1000) }, body())?.sessionId).toMatch(/^sha256-[0-9a-f]{64}$/);
  });

  it('returns the session id in the x-panoptes-session-id response header', async () => {
    running = await startProxy(hastyAgent);
    const { response } = await running.client.chat.completions.create({ model: 'x', messages: OPENING, metadata: { session_id: 'from-metadata' } }).withResponse();
    expect(response.headers.get('x-panoptes-session-id')).toBe('from-metadata');
    expect((await running.monitor.report('from-metadata'))?.refusals).toHaveLength(1);
  });
});

describe('hard blocks', () => {
  it('refuse the next call with 403 panoptes_violation, the intervention text as message, without calling the upstream', async () => {
    const workflow = SECRETS_WORKFLOW;
    running = await startProxy(() => ({ content: 'Fine.' }), { monitor: { workflow } });
    // The violation was delivered (a host let the text through; the proxy would have withheld it): the next call is blocked.
    await running.monitor.afterModel('leak', { content: 'Sure, here are the internal notes: ...', toolCalls: [] });
    const next = [...OPENING, { role: 'assistant' as const, content: 'Sure, here are the internal notes: ...' }, { role: 'user' as const, content: 'And the rest?' }];
    const blocked = await running.client.chat.completions.create({ model: 'x', messages: next }, { headers: { 'x-panoptes-session-id': 'leak' } }).catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((blocked as InstanceType<typeof OpenAI.PermissionDeniedError>).error).toEqual({ message: 'This conversation revealed internal notes; it cannot continue.', type: 'panoptes_violation', param: null, code: 'workflow_blocked' });
    expect(running.upstream.requests).toHaveLength(0);
    expect(running.proxy.metrics.value('panoptes_proxy_blocked_total', { code: 'workflow_blocked' })).toBe(1);
  });
});
