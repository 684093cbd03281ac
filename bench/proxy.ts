/**
 * The proxy's cost (DESIGN.md section 13, issue 18), all on loopback, in one run:
 *
 * - **latency at 500 requests/s**: a fixed count of non-streamed chat completions sent on a fixed schedule (one every
 *   2 ms, open loop), each timed from send to the last byte, straight to the fake upstream (`direct`), through a
 *   plain Fastify + undici pass-through (`plain`, the same framework without Panoptes), through `panoptes serve`'s
 *   proxy with the in-memory store, and with the Redis store (a real redis-server, when installed);
 * - **throughput**: autocannon with 16 connections and a fixed request count against `plain` and the proxy;
 * - **time to first streamed token**: a streamed completion whose first text delta comes at once, timed to that
 *   delta's arrival at the client, direct, plain, and through the proxy.
 *
 * Everything (client, proxies, upstream) runs in this process, so each variant pays the same event-loop sharing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { Agent, request } from 'undici';
import { createMonitor, loadWorkflow, type MonitorSession } from 'panoptes';
import { createProxy } from 'panoptes/proxy';
import { summarize, type BenchRow } from './harness.js';

const SUITE = 'proxy';
const WORKFLOW = fileURLToPath(new URL('../examples/workflows/customer-support.yaml', import.meta.url));
const RATE_PER_S = 500;
const LATENCY_REQUESTS = 2500;
const THROUGHPUT_REQUESTS = 6000;
const TTFT_REQUESTS = 400;
const SESSIONS = 100;

const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Could you tell me more about the problem with your order?' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 20, completion_tokens: 12, total_tokens: 32 },
});
const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const body = JSON.stringify({
  model: 'bench',
  messages: [
    { role: 'system', content: 'You are the support agent of an online shop. Be brief.' },
    { role: 'user', content: 'Hi, my order arrived broken.' },
    { role: 'assistant', content: 'Hello! How can I help you today?' },
    { role: 'user', content: 'The mug in order 1042 is cracked. I would like my money back, please.' },
  ],
});
const streamBody = JSON.stringify({ ...JSON.parse(body), stream: true });

/** The fake upstream: answers at once; a stream sends its first text delta at once and the rest 20 ms later. */
async function startUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (data: Buffer) => (raw += data.toString()));
    req.on('end', () => {
      if (raw.includes('"stream":true')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ role: 'assistant', content: 'Could' }));
        setTimeout(() => {
          res.write(chunk({ content: ' you tell me more?' }));
          res.write(chunk({}, 'stop'));
          res.end('data: [DONE]\n\n');
        }, 20);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(completion);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

/** The baseline proxy: Fastify parses the JSON body, undici forwards it, the answer goes back as text. No Panoptes. */
async function startPlain(upstream: string) {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const app = Fastify({ logger: false });
  app.post('/v1/chat/completions', async (req, reply) => {
    const response = await request(`${upstream}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req.body), dispatcher });
    if (String(response.headers['content-type']).includes('event-stream')) {
      reply.hijack();
      reply.raw.writeHead(response.statusCode, { 'content-type': 'text/event-stream' });
      for await (const piece of response.body) reply.raw.write(piece);
      reply.raw.end();
      return;
    }
    return reply.code(response.statusCode).header('content-type', 'application/json').send(await response.body.text());
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`, close: () => app.close().then(() => dispatcher.close()) };
}

async function startPanoptes(upstream: string, store?: import('panoptes/redis').RedisSessionStore<MonitorSession>) {
  const monitor = createMonitor({ workflow: await loadWorkflow(WORKFLOW), ...(store ? { store } : {}) });
  const proxy = createProxy({ upstream, monitor, port: 0, ...(store ? { storeHealthy: () => store.healthy } : {}) });
  const { url } = await proxy.listen();
  return { url: `${url}/v1`, close: () => proxy.close(), monitor };
}

const client = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
const headersFor = (index: number) => ({ 'content-type': 'application/json', 'x-session-id': `bench-${index % SESSIONS}` });

/** One request's time to its last byte, in microseconds. */
async function timeOne(base: string, index: number): Promise<number> {
  const start = performance.now();
  const response = await request(`${base}/chat/completions`, { method: 'POST', headers: headersFor(index), body, dispatcher: client });
  await response.body.text();
  if (response.statusCode !== 200) throw new Error(`status ${response.statusCode} from ${base}`);
  return (performance.now() - start) * 1000;
}

/** `count` requests sent on a fixed schedule (open loop): the latency of each, whatever the previous did. */
async function atRate(base: string, count: number): Promise<number[]> {
  for (let i = 0; i < 200; i++) await timeOne(base, i); // warm-up: connections, JIT
  const interval = 1000 / RATE_PER_S;
  const start = performance.now();
  const pending: Array<Promise<number>> = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(timeOne(base, i));
  }
  return Promise.all(pending);
}

/** Time from sending a streamed request to its first text delta, in microseconds. */
async function firstToken(base: string, index: number): Promise<number> {
  const start = performance.now();
  const response = await request(`${base}/chat/completions`, { method: 'POST', headers: headersFor(index), body: streamBody, dispatcher: client });
  let at = 0;
  for await (const piece of response.body) {
    if (!at && String(piece).includes('"content":"Could"')) at = performance.now();
  }
  return (at - start) * 1000;
}

async function throughput(base: string): Promise<number> {
  const result = await autocannon({ url: `${base}/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json', 'x-session-id': 'bench-throughput' }, body, connections: 16, amount: THROUGHPUT_REQUESTS });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`throughput run against ${base}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const row = (name: string, values: number[], extra: BenchRow['extra'] = {}, target?: string, met?: boolean): BenchRow => ({ suite: SUITE, name, samples: values.length, ...summarize(values), extra, ...(target ? { target, met: met! } : {}) });

/** Runs the proxy benchmarks; `npm run bench -- proxy`. */
export async function proxyBench(): Promise<BenchRow[]> {
  const upstream = await startUpstream();
  const plain = await startPlain(upstream.url);
  const panoptes = await startPanoptes(upstream.url);
  const rows: BenchRow[] = [];

  const direct = await atRate(upstream.url, LATENCY_REQUESTS);
  const viaPlain = await atRate(plain.url, LATENCY_REQUESTS);
  const viaPanoptes = await atRate(panoptes.url, LATENCY_REQUESTS);
  const p = (values: number[]) => summarize(values);
  const added = { p50: p(viaPanoptes).p50Us - p(direct).p50Us, p99: p(viaPanoptes).p99Us - p(direct).p99Us };
  const addedOverPlain = { p50: p(viaPanoptes).p50Us - p(viaPlain).p50Us, p99: p(viaPanoptes).p99Us - p(viaPlain).p99Us };
  rows.push(row(`${RATE_PER_S} req/s, direct to the upstream (baseline)`, direct));
  rows.push(row(`${RATE_PER_S} req/s, plain Fastify + undici pass-through (baseline)`, viaPlain, { 'added p50 us': Math.round(p(viaPlain).p50Us - p(direct).p50Us), 'added p99 us': Math.round(p(viaPlain).p99Us - p(direct).p99Us) }));
  rows.push(
    row(
      `${RATE_PER_S} req/s, panoptes proxy (memory store)`,
      viaPanoptes,
      { 'added p50 us': Math.round(added.p50), 'added p99 us': Math.round(added.p99), 'over plain p50 us': Math.round(addedOverPlain.p50), 'over plain p99 us': Math.round(addedOverPlain.p99) },
      'added p50 <= 500 us, p99 <= 2000 us',
      added.p50 <= 500 && added.p99 <= 2000,
    ),
  );

  const plainRps = await throughput(plain.url);
  const panoptesRps = await throughput(panoptes.url);
  rows.push({ suite: SUITE, name: `throughput, ${THROUGHPUT_REQUESTS} requests, 16 connections`, samples: 0, p50Us: 0, p99Us: 0, meanUs: 0, extra: { 'plain req/s': Math.round(plainRps), 'panoptes req/s': Math.round(panoptesRps), ratio: Number((panoptesRps / plainRps).toFixed(2)) }, target: '>= 0.70 of plain', met: panoptesRps / plainRps >= 0.7 });

  const ttft = async (base: string) => {
    for (let i = 0; i < 20; i++) await firstToken(base, i);
    const values: number[] = [];
    for (let i = 0; i < TTFT_REQUESTS; i++) values.push(await firstToken(base, i));
    return values;
  };
  const ttftDirect = await ttft(upstream.url);
  const ttftPlain = await ttft(plain.url);
  const ttftPanoptes = await ttft(panoptes.url);
  rows.push(row('first streamed token, direct (baseline)', ttftDirect));
  rows.push(row('first streamed token, plain pass-through (baseline)', ttftPlain));
  const ttftAdded = p(ttftPanoptes).p50Us - p(ttftDirect).p50Us;
  rows.push(row('first streamed token, panoptes proxy', ttftPanoptes, { 'added p50 us': Math.round(ttftAdded), 'over plain p50 us': Math.round(p(ttftPanoptes).p50Us - p(ttftPlain).p50Us) }, 'added <= 1000 us', ttftAdded <= 1000));

  await panoptes.close();
  rows.push(...(await redisRows(upstream.url, viaPanoptes)));
  await plain.close();
  await client.close();
  await new Promise((resolve) => upstream.server.close(resolve));
  upstream.server.closeAllConnections();
  return rows;
}

/** The same latency run with the Redis store, against the memory store's run; skipped without redis-server. */
async function redisRows(upstream: string, memory: number[]): Promise<BenchRow[]> {
  let redis: Awaited<ReturnType<typeof import('../test/store/redis-server.js').startRedisServer>>;
  try {
    redis = await (await import('../test/store/redis-server.js')).startRedisServer();
  } catch (error) {
    return [{ suite: SUITE, name: `${RATE_PER_S} req/s, panoptes proxy (Redis store)`, samples: 0, p50Us: 0, p99Us: 0, meanUs: 0, extra: { skipped: `redis-server not available: ${(error as Error).message}` } }];
  }
  const { createRedisSessionStore } = await import('panoptes/redis');
  const store = createRedisSessionStore<MonitorSession>({ url: redis.url });
  await store.ready();
  const proxy = await startPanoptes(upstream, store);
  const direct = await atRate(upstream, LATENCY_REQUESTS);
  const viaRedis = await atRate(proxy.url, LATENCY_REQUESTS);
  await proxy.close();
  await store.close();
  await redis.stop();
  const added = summarize(viaRedis).p50Us - summarize(direct).p50Us;
  return [
    row(`${RATE_PER_S} req/s, direct to the upstream (baseline of the Redis run)`, direct),
    row(
      `${RATE_PER_S} req/s, panoptes proxy (Redis store)`,
      viaRedis,
      { 'added p50 us': Math.round(added), 'over memory store p50 us': Math.round(summarize(viaRedis).p50Us - summarize(memory).p50Us), misses: JSON.stringify(store.misses()) },
      'added p50 <= 1500 us',
      added <= 1500,
    ),
  ];
}
