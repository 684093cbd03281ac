/**
 * The proxy in production: the request duration histogram and capped model labels on `/metrics`, the probes
 * (`/livez`, `/readyz` against a real Redis stopped and started), and a rate limit per caller.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidOptionError } from '../../src/index.js';
import { createProxy } from '../../src/proxy/index.js';
import { DURATION_BUCKETS_S, MAX_MODEL_LABELS } from '../../src/proxy/metrics.js';
import { loadServeConfig } from '../../src/proxy/config.js';
import { importForProxy } from '../../src/proxy/optional-package.js';
import { RATE_LIMIT_PACKAGE } from '../../src/proxy/rate-limit.js';
import { startServe, type RunningProxy } from '../../src/proxy/serve.js';
import { startRedisServer } from '../store/redis-server.js';
import { hastyAgent, startFakeUpstream } from './fake-upstream.js';
import { json, OPENING, quietLogger, startProxy, SUPPORT_WORKFLOW, TOOLS, type Running } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function proxyOver(options: Parameters<typeof startProxy>[1] = {}): Promise<Running> {
  const running = await startProxy(hastyAgent, options);
  cleanups.push(() => running.close());
  return running;
}

/** One histogram of a Prometheus text page: each series by its labels (without `le`), its buckets, sum and count. */
function parseHistogram(text: string, name: string): Map<string, { buckets: Array<[string, number]>; sum: number; count: number }> {
  expect(text).toContain(`# TYPE ${name} histogram\n`);
  const series = new Map<string, { buckets: Array<[string, number]>; sum: number; count: number }>();
  const entry = (labels: string) => {
    if (!series.has(labels)) series.set(labels, { buckets: [], sum: Number.NaN, count: Number.NaN });
    return series.get(labels)!;
  };
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || !match[1]!.startsWith(name)) continue;
    const [, metric, labelText, value] = match;
    const labels = labelText!.split(',').filter((label) => !label.startsWith('le=')).join(',');
    if (metric === `${name}_bucket`) entry(labels).buckets.push([/le="([^"]+)"/.exec(labelText!)![1]!, Number(value)]);
    else if (metric === `${name}_sum`) entry(labels).sum = Number(value);
    else if (metric === `${name}_count`) entry(labels).count = Number(value);
  }
  return series;
}

const metricsText = async (url: string) => (await fetch(`${url}/metrics`)).text();

describe('/metrics', () => {
  it('has request duration histograms by route and outcome, with fixed buckets, _sum and _count', async () => {
    const running = await proxyOver({ proxy: { proxyKeys: ['key-1'] }, apiKey: 'sk-test' });
    const headers = { 'x-panoptes-key': 'key-1' };
    // Refused: the fake agent calls issue_refund before verify_identity.
    const answer = await running.client.chat.completions.create({ model: 'fake-model', messages: OPENING, tools: TOOLS }, { headers });
    expect(answer.choices[0]!.message.content).toMatch(/^\[Panoptes\] The call to issue_refund was refused/);
    expect((await fetch(`${running.url}/v1/chat/completions`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect((await fetch(`${running.url}/nowhere`, { headers })).status).toBe(404);

    const text = await metricsText(running.url);
    const histogram = parseHistogram(text, 'panoptes_proxy_request_duration_seconds');
    expect([...histogram.keys()].sort()).toEqual(['route="/v1/chat/completions",outcome="refused"', 'route="/v1/chat/completions",outcome="unauthorized"', 'route="unknown",outcome="rejected"']);
    for (const { buckets, sum, count } of histogram.values()) {
      expect(buckets.map(([le]) => le)).toEqual([...DURATION_BUCKETS_S.map(String), '+Inf']);
      const counts = buckets.map(([, value]) => value);
      expect(counts).toEqual([...counts].sort((a, b) => a - b)); // cumulative
      expect(counts.at(-1)).toBe(count);
      expect(count).toBe(1);
      expect(sum).toBeGreaterThan(0);
      expect(sum).toBeLessThan(5);
    }
    expect(text).toContain('panoptes_proxy_requests_total{route="/v1/chat/completions",model="fake-model",status="200"} 1');
    expect(text).toContain('panoptes_proxy_requests_total{route="/v1/chat/completions",model="none",status="401"} 1');
  });

  it(`labels requests by model for the first ${MAX_MODEL_LABELS} names, and every later one as other`, async () => {
    const running = await proxyOver();
    const models = Array.from({ length: MAX_MODEL_LABELS + 3 }, (_, index) => `model-${index}`);
    for (const model of models) await running.client.chat.completions.create({ model, messages: OPENING });
    await running.client.chat.completions.create({ model: 'model-0', messages: OPENING });
    const text = await metricsText(running.url);
    const labelled = [...text.matchAll(/^panoptes_proxy_requests_total\{route="\/v1\/chat\/completions",model="([^"]+)",status="200"\} (\d+)$/gm)].map((match) => [match[1], Number(match[2])]);
    expect(labelled).toHaveLength(MAX_MODEL_LABELS + 1);
    expect(labelled).toContainEqual(['model-0', 2]);
    expect(labelled).toContainEqual([`model-${MAX_MODEL_LABELS - 1}`, 1]);
    expect(labelled).toContainEqual(['other', 3]);
    expect(text).not.toContain(`model="model-${MAX_MODEL_LABELS}"`);
  });
});

describe('probes', () => {
  it('/livez, /readyz, /healthz and /metrics answer without the proxy key; the rest still needs it', async () => {
    const running = await proxyOver({ proxy: { proxyKeys: ['key-1'] } });
    const livez = await fetch(`${running.url}/livez`);
    expect(livez.status).toBe(200);
    expect(await json(livez)).toEqual({ status: 'ok' });
    const readyz = await fetch(`${running.url}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await json(readyz)).toEqual({ status: 'ready', store: 'ok', workflow: 'customer-support' });
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${running.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${running.url}/livez/../v1/models`)).status).toBe(401);
    expect((await fetch(`${running.url}/readyz`, { method: 'POST' })).status).toBe(401);
  });

  it('/readyz answers 503 with the reason while the store does not answer, unless degraded by choice; /healthz stays 200', async () => {
    let healthy = false;
    const strict = await proxyOver({ proxy: { storeHealthy: () => healthy } });
    const notReady = await fetch(`${strict.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await json(notReady)).toEqual({
      status: 'not_ready',
      store: 'degraded',
      workflow: 'customer-support',
      reason: 'The session store does not answer: sessions would not be shared. Set ready_when_degraded: true to take traffic anyway (fail-open).',
    });
    expect(await json(await fetch(`${strict.url}/healthz`))).toMatchObject({ status: 'degraded' });
    healthy = true;
    expect((await fetch(`${strict.url}/readyz`)).status).toBe(200);

    const lenient = await proxyOver({ proxy: { storeHealthy: () => false, readyWhenDegraded: true } });
    const degraded = await fetch(`${lenient.url}/readyz`);
    expect(degraded.status).toBe(200);
    expect(await json(degraded)).toEqual({ status: 'degraded', store: 'degraded', workflow: 'customer-support' });
  });

  it('/readyz follows a real Redis: ready, 503 once it is killed, ready again once it is back', async () => {
    const redis = await startRedisServer();
    const upstream = await startFakeUpstream(hastyAgent);
    cleanups.push(() => upstream.close(), () => redis.stop());
    const config = await loadServeConfig({ env: {}, flags: { upstream: upstream.url, workflow: SUPPORT_WORKFLOW, port: '0', 'redis.url': redis.url } });
    const running: RunningProxy = await startServe(config, { logger: quietLogger(), env: {} });
    cleanups.push(() => running.close());
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
    await redis.kill();
    await vi.waitFor(async () => expect((await fetch(`${running.url}/readyz`)).status).toBe(503), { timeout: 5000, interval: 50 });
    expect((await json(await fetch(`${running.url}/readyz`))).reason).toMatch(/^The session store does not answer/);
    expect((await fetch(`${running.url}/livez`)).status).toBe(200);
    await redis.restart();
    await vi.waitFor(async () => expect((await fetch(`${running.url}/readyz`)).status).toBe(200), { timeout: 10_000, interval: 100 });
  });

  it('with ready_when_degraded: true, a proxy whose Redis is down at start is ready, and says degraded', async () => {
    const redis = await startRedisServer();
    await redis.kill();
    const upstream = await startFakeUpstream(hastyAgent);
    cleanups.push(() => upstream.close(), () => redis.stop());
    const config = await loadServeConfig({ env: { PANOPTES_READY_WHEN_DEGRADED: 'true' }, flags: { upstream: upstream.url, workflow: SUPPORT_WORKFLOW, port: '0', 'redis.url': redis.url } });
    const logger = quietLogger();
    const running = await startServe(config, { logger, env: {} });
    cleanups.push(() => running.close());
    const readyz = await fetch(`${running.url}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await json(readyz)).toEqual({ status: 'degraded', store: 'degraded', workflow: 'customer-support' });
    expect(logger.lines.join('\n')).toContain('Redis did not answer at start');
  });
});

const RATE_LIMITED = 'Rate limit reached: at most 2 requests per 60000 ms for each proxy key. Retry in 60 s.';

describe('rate_limit', () => {
  it('refuses bad limits when the proxy is built', async () => {
    const running = await proxyOver();
    for (const rateLimit of [{ max: 0, windowMs: 1000 }, { max: 2, windowMs: 1.5 }]) {
      expect(() => createProxy({ upstream: running.upstream.url, monitor: running.monitor, rateLimit })).toThrow(InvalidOptionError);
    }
  });

  it('answers a caller over its limit with a 429 in the route format and retry-after, to the official clients; another key has its own budget', async () => {
    const running = await proxyOver({ proxy: { proxyKeys: ['key-1', 'key-2'], rateLimit: { max: 2, windowMs: 60_000 } }, anthropic: true });
    const headers = { 'x-panoptes-key': 'key-1' };
    const ask = () => running.client.chat.completions.create({ model: 'fake-model', messages: OPENING }, { headers });
    await ask();
    await ask();
    const error = await ask().then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const limited = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect([limited.status, limited.code, limited.type, limited.headers.get('retry-after')]).toEqual([429, 'rate_limit_exceeded', 'rate_limit_error', '60']);
    expect(limited.error).toEqual({ message: RATE_LIMITED, type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' });

    const raw = await fetch(`${running.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('60');
    expect(await raw.text()).toBe(JSON.stringify({ error: { message: RATE_LIMITED, type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } }));

    const anthropic = new Anthropic({ baseURL: running.url, apiKey: 'sk-ant-test', maxRetries: 0, defaultHeaders: headers });
    const anthropicError = await anthropic.messages.create({ model: 'fake-model', max_tokens: 100, messages: [{ role: 'user', content: 'Refund order A-1042.' }] }).then(() => undefined, (caught: unknown) => caught);
    expect(anthropicError).toBeInstanceOf(Anthropic.RateLimitError);
    expect((anthropicError as InstanceType<typeof Anthropic.RateLimitError>).error).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: RATE_LIMITED, code: 'rate_limit_exceeded' } });

    await running.client.chat.completions.create({ model: 'fake-model', messages: OPENING }, { headers: { 'x-panoptes-key': 'key-2' } });
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200); // probes are not counted
    const histogram = parseHistogram(await metricsText(running.url), 'panoptes_proxy_request_duration_seconds');
    expect(histogram.get('route="/v1/chat/completions",outcome="rate_limited"')?.count).toBe(2);
    expect(histogram.get('route="/v1/messages",outcome="rate_limited"')?.count).toBe(1);
  });

  it('counts each client address on an open proxy', async () => {
    const running = await proxyOver({ proxy: { rateLimit: { max: 1, windowMs: 1000 } } });
    await running.client.chat.completions.create({ model: 'fake-model', messages: OPENING });
    const error = await running.client.chat.completions.create({ model: 'fake-model', messages: OPENING }).then(() => undefined, (caught: unknown) => caught);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).error).toMatchObject({ message: 'Rate limit reached: at most 1 request per 1000 ms for each client address. Retry in 1 s.' });
  });

  it('names the package to install when it is missing', async () => {
    const missing = (name: string) => Promise.reject(Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/panoptes/dist/src/proxy/rate-limit.js`), { code: 'ERR_MODULE_NOT_FOUND' }));
    await expect(importForProxy(RATE_LIMIT_PACKAGE, 'rate_limit', 'leave rate_limit out of the configuration', missing)).rejects.toThrow(
      'rate_limit needs the package `@fastify/rate-limit`, which is not installed: npm install @fastify/rate-limit (next to panoptes), or leave rate_limit out of the configuration.',
    );
  });
});
