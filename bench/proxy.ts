/**
 * The proxy's cost (DESIGN.md section 13, issue 18), all on loopback, in one run:
 *
 * - **latency at 500 requests/s**: a fixed count of non-streamed chat completions sent on a fixed schedule (one every
 *   2 ms, open loop), each timed from send to the last byte, straight to the fake upstream (`direct`), through a
 *   plain Fastify + undici pass-through (`plain`, the same framework without Panoptes), through `panoptes serve`'s
 *   proxy with the in-memory store, and with the Redis store (a real redis-server, when installed);
 * - **throughput**: 16 connections sending back to back until a fixed count is answered, against `plain` and the proxy;
 * - **time to first streamed token**: a streamed completion whose first text delta comes at once, timed to that
 *   delta's arrival at the client, direct, plain, and through the proxy.
 *
 * The upstream and each proxy run in processes of their own (bench/proxy-servers.ts); the client runs here.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { summarize, type BenchRow } from './harness.js';

const SUITE = 'proxy';
const RATE_PER_S = 500;
const THROUGHPUT_REQUESTS = 8000;
const TTFT_REQUESTS = 400;
/** Sessions the requests cycle through: each gets a call every second at 500 req/s, as a conversation would. */
const SESSIONS = 500;
const LOW_RATE_PER_S = 100;

/** A conversation of a few turns, as an agent's request is by its third or fourth call. */
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

/** Starts one of bench/proxy-servers.ts's servers in a child process; resolves with its base URL. */
export async function spawnServer(...args: string[]): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./proxy-servers.ts', import.meta.url)), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (data: Buffer) => {
      out += data.toString();
      const match = /url (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`bench server ${args[0]} exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

const client = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
/** Closes the bench client's connection pool. */
export const closeClient = () => client.close();
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
async function atRate(base: string, count: number, rate = RATE_PER_S, offset = 0): Promise<number[]> {
  const interval = 1000 / rate;
  const start = performance.now();
  const pending: Array<Promise<number>> = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(timeOne(base, offset + i));
  }
  return Promise.all(pending);
}

/**
 * The machine is shared and its speed moves by the second, so the targets take turns: `rounds` rounds, each running
 * every target for `perRound` requests at `rate`, in an order that rotates. A slow stretch then lands on every
 * target, not on one target's whole run. Each target is warmed up first (1,000 requests, one at a time).
 */
async function interleaved(bases: string[], { rate, rounds, perRound }: { rate: number; rounds: number; perRound: number }): Promise<number[][]> {
  for (const base of bases) for (let i = 0; i < 1000; i++) await timeOne(base, i);
  const results = bases.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let turn = 0; turn < bases.length; turn++) {
      const target = (round + turn) % bases.length;
      results[target]!.push(...(await atRate(bases[target]!, perRound, rate, round * perRound)));
    }
  }
  return results;
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

/**
 * Requests per second at saturation: 16 connections, each sending its next request as soon as its last is answered,
 * until a fixed count is answered; timed here (autocannon's own clock ticks once a second, too coarse for a run of one
 * or two seconds). `sessions` is how many sessions the requests cycle through: one is a single busy conversation (its
 * calls queue for their turn), many is a fleet.
 */
async function throughput(base: string, sessions = 1): Promise<number> {
  let sent = 0;
  const connection = async () => {
    while (sent < THROUGHPUT_REQUESTS) {
      const index = sent++;
      const response = await request(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-session-id': `bench-throughput-${index % sessions}` }, body, dispatcher: client });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`throughput run against ${base}: status ${response.statusCode}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: 16 }, connection));
  return THROUGHPUT_REQUESTS / ((performance.now() - start) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const row = (name: string, values: number[], extra: BenchRow['extra'] = {}, target?: string, met?: boolean): BenchRow => ({ suite: SUITE, name, samples: values.length, ...summarize(values), extra, ...(target ? { target, met: met! } : {}) });

/** Runs the proxy benchmarks; `npm run bench -- proxy`. */
export async function proxyBench(): Promise<BenchRow[]> {
  const upstream = await spawnServer('upstream');
  const plain = await spawnServer('plain', upstream.url);
  const panoptes = await spawnServer('panoptes', upstream.url);
  const rows: BenchRow[] = [];
  const p = (values: number[]) => summarize(values);

  for (const rate of [LOW_RATE_PER_S, RATE_PER_S]) {
    const [direct, viaPlain, viaPanoptes] = await interleaved([upstream.url, plain.url, panoptes.url], { rate, rounds: 5, perRound: rate });
    const added = { p50: p(viaPanoptes!).p50Us - p(direct!).p50Us, p99: p(viaPanoptes!).p99Us - p(direct!).p99Us };
    rows.push(row(`${rate} req/s, direct to the upstream (baseline)`, direct!));
    rows.push(row(`${rate} req/s, plain Fastify + undici pass-through (baseline)`, viaPlain!, { 'added p50 us': Math.round(p(viaPlain!).p50Us - p(direct!).p50Us), 'added p99 us': Math.round(p(viaPlain!).p99Us - p(direct!).p99Us) }));
    const extra = { 'added p50 us': Math.round(added.p50), 'added p99 us': Math.round(added.p99), 'over plain p50 us': Math.round(p(viaPanoptes!).p50Us - p(viaPlain!).p50Us), 'over plain p99 us': Math.round(p(viaPanoptes!).p99Us - p(viaPlain!).p99Us) };
    const overPlain = { p50: p(viaPanoptes!).p50Us - p(viaPlain!).p50Us, p99: p(viaPanoptes!).p99Us - p(viaPlain!).p99Us };
    if (rate === RATE_PER_S) rows.push(row(`${rate} req/s, panoptes proxy (memory store)`, viaPanoptes!, extra, 'over plain p50 <= 100 us, p99 <= 500 us', overPlain.p50 <= 100 && overPlain.p99 <= 500));
    else rows.push(row(`${rate} req/s, panoptes proxy (memory store)`, viaPanoptes!, extra));
  }

  // Three runs each, taking turns; the median of each.
  const plainRuns: number[] = [];
  const panoptesRuns: number[] = [];
  for (let run = 0; run < 3; run++) {
    plainRuns.push(await throughput(plain.url));
    panoptesRuns.push(await throughput(panoptes.url));
  }
  const plainRps = median(plainRuns);
  const panoptesRps = median(panoptesRuns);
  rows.push({ suite: SUITE, name: `throughput, ${THROUGHPUT_REQUESTS} requests, 16 connections`, samples: 0, p50Us: 0, p99Us: 0, meanUs: 0, extra: { 'plain req/s': Math.round(plainRps), 'panoptes req/s': Math.round(panoptesRps), ratio: Number((panoptesRps / plainRps).toFixed(2)) }, target: '>= 0.70 of plain', met: panoptesRps / plainRps >= 0.7 });

  // One request to each in turn, so each triple sees the same moment of the machine; the added time is the median of
  // the paired differences.
  for (let i = 0; i < 50; i++) for (const base of [upstream.url, plain.url, panoptes.url]) await firstToken(base, i);
  const ttftDirect: number[] = [];
  const ttftPlain: number[] = [];
  const ttftPanoptes: number[] = [];
  for (let i = 0; i < TTFT_REQUESTS; i++) {
    ttftDirect.push(await firstToken(upstream.url, i));
    ttftPlain.push(await firstToken(plain.url, i));
    ttftPanoptes.push(await firstToken(panoptes.url, i));
  }
  const paired = ttftPanoptes.map((value, index) => value - ttftDirect[index]!);
  const pairedPlain = ttftPanoptes.map((value, index) => value - ttftPlain[index]!);
  rows.push(row('first streamed token, direct (baseline)', ttftDirect));
  rows.push(row('first streamed token, plain pass-through (baseline)', ttftPlain));
  const ttftAdded = p(paired).p50Us;
  const ttftOverPlain = p(pairedPlain).p50Us;
  rows.push(row('first streamed token, panoptes proxy', ttftPanoptes, { 'added p50 us (paired)': Math.round(ttftAdded), 'over plain p50 us (paired)': Math.round(ttftOverPlain) }, 'over plain <= 200 us', ttftOverPlain <= 200));

  panoptes.stop();
  rows.push(...(await redisRows(upstream.url)));
  plain.stop();
  upstream.stop();
  await client.close();
  return rows;
}

/** The latency runs with the Redis store, against direct and the memory store in the same stretch; skipped without redis-server. */
export async function redisRows(upstream: string): Promise<BenchRow[]> {
  let redis: Awaited<ReturnType<typeof import('../test/store/redis-server.js').startRedisServer>>;
  try {
    redis = await (await import('../test/store/redis-server.js')).startRedisServer();
  } catch (error) {
    return [{ suite: SUITE, name: `${RATE_PER_S} req/s, panoptes proxy (Redis store)`, samples: 0, p50Us: 0, p99Us: 0, meanUs: 0, extra: { skipped: `redis-server not available: ${(error as Error).message}` } }];
  }
  const memory = await spawnServer('panoptes', upstream);
  const withRedis = await spawnServer('panoptes', upstream, redis.url);
  const rows: BenchRow[] = [];
  for (const rate of [LOW_RATE_PER_S, RATE_PER_S]) {
    const [direct, viaMemory, viaRedis] = await interleaved([upstream, memory.url, withRedis.url], { rate, rounds: 5, perRound: rate });
    const added = summarize(viaRedis!).p50Us - summarize(direct!).p50Us;
    rows.push(row(`${rate} req/s, direct to the upstream (baseline of the Redis run)`, direct!));
    rows.push(row(`${rate} req/s, panoptes proxy, memory store (same stretch)`, viaMemory!, { 'added p50 us': Math.round(summarize(viaMemory!).p50Us - summarize(direct!).p50Us) }));
    const overMemory = summarize(viaRedis!).p50Us - summarize(viaMemory!).p50Us;
    const extra = { 'added p50 us': Math.round(added), 'over memory store p50 us': Math.round(overMemory) };
    if (rate === RATE_PER_S) rows.push(row(`${rate} req/s, panoptes proxy (Redis store)`, viaRedis!, extra, 'over memory store p50 <= 1000 us', overMemory <= 1000));
    else rows.push(row(`${rate} req/s, panoptes proxy (Redis store)`, viaRedis!, extra));
  }
  // Saturation, taking turns: a fleet of sessions (the target), and one busy session (reported: its calls wait in turn).
  for (const sessions of [SESSIONS, 1]) {
    const memoryRuns: number[] = [];
    const redisRuns: number[] = [];
    for (let run = 0; run < 3; run++) {
      memoryRuns.push(await throughput(memory.url, sessions));
      redisRuns.push(await throughput(withRedis.url, sessions));
    }
    const ratio = median(redisRuns) / median(memoryRuns);
    const extra = { 'memory req/s': Math.round(median(memoryRuns)), 'redis req/s': Math.round(median(redisRuns)), ratio: Number(ratio.toFixed(2)) };
    const name = `throughput with the Redis store, ${sessions === 1 ? 'one session' : `${sessions} sessions`}, 16 connections`;
    rows.push({ suite: SUITE, name, samples: 0, p50Us: 0, p99Us: 0, meanUs: 0, extra, ...(sessions === 1 ? {} : { target: '>= 0.70 of the memory store', met: ratio >= 0.7 }) });
  }
  memory.stop();
  withRedis.stop();
  await redis.stop();
  return rows;
}
