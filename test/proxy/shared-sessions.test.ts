/**
 * Two proxy instances on one Redis (issue 18): alternate calls of a conversation agree on every verdict with one
 * instance alone, and Redis dying in the middle of a load run fails no request.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMonitor, loadWorkflow, type MonitorSession } from '../../src/index.js';
import { createProxy, type Proxy } from '../../src/proxy/index.js';
import { createRedisSessionStore, type RedisSessionStore } from '../../src/store/redis/index.js';
import { startRedisServer, type RedisServer } from '../store/redis-server.js';
import { hastyAgent, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { json, OPENING, SUPPORT_WORKFLOW, quietLogger, recordingClient, runDemo, startProxy } from './helpers.js';
import { functionCalls, runResponsesDemo } from './responses-helpers.js';

let redis: RedisServer;
let upstream: FakeUpstream;
const cleanups: Array<() => Promise<void>> = [];
let prefixCount = 0;

beforeAll(async () => {
  redis = await startRedisServer();
  upstream = await startFakeUpstream(hastyAgent);
});
afterAll(async () => {
  await upstream.close();
  await redis.stop();
});
afterEach(async () => {
  prefixCount++;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One proxy instance with its own monitor and its own Redis client, as a separate process would have. */
async function instance(): Promise<{ proxy: Proxy; store: RedisSessionStore<MonitorSession>; client: OpenAI; sessionIds: string[]; url: string }> {
  const logger = quietLogger();
  const store = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: `shared${prefixCount}:`, logger });
  await store.ready();
  const monitor = createMonitor({ workflow: await loadWorkflow(SUPPORT_WORKFLOW), store, logger });
  const proxy = createProxy({ upstream: upstream.url, monitor, port: 0, logger, storeHealthy: () => store.healthy, conversations: store.conversations(), responseRecords: store.responses() });
  const { url } = await proxy.listen();
  cleanups.push(async () => {
    await proxy.close();
    await store.close();
  });
  return { proxy, store, url, ...recordingClient(url) };
}

/** A client that sends call k to `clients[k % 2]`: a load balancer alternating between two instances. */
function alternating(clients: OpenAI[]): OpenAI {
  let call = 0;
  const pick = () => clients[call++ % clients.length]!;
  return {
    chat: {
      completions: {
        create: (...args: Parameters<OpenAI['chat']['completions']['create']>) => pick().chat.completions.create(...args),
        stream: (...args: Parameters<OpenAI['chat']['completions']['stream']>) => pick().chat.completions.stream(...args),
      },
    },
    responses: {
      create: (...args: Parameters<OpenAI['responses']['create']>) => pick().responses.create(...args),
      stream: (...args: Parameters<OpenAI['responses']['stream']>) => pick().responses.stream(...args),
    },
  } as unknown as OpenAI;
}

describe.each([false, true])('two proxies on one Redis, the Responses API continued by previous_response_id (stream: %s)', (stream) => {
  it('find the session of the response each call continues, whichever instance recorded it', async () => {
    const [a, b] = [await instance(), await instance()];
    const { answers } = await runResponsesDemo(alternating([a.client, b.client]), { stream, chain: true });
    expect(answers[0]!.response.output_text).toBe("I can't do that.");
    expect(functionCalls(answers[1]!.response).map((call) => call.name)).toEqual(['verify_identity']);
    expect(functionCalls(answers[2]!.response).map((call) => call.name)).toEqual(['issue_refund']);
    expect(new Set([...a.sessionIds, ...b.sessionIds]).size).toBe(1);
    expect(a.sessionIds.length).toBeGreaterThan(0);
    expect(b.sessionIds.length).toBeGreaterThan(0);
  });
});

describe.each([false, true])('two proxies on one Redis (stream: %s)', (stream) => {
  it('agree on every verdict with one proxy alone, call by call', async () => {
    const alone = await startProxy(hastyAgent);
    cleanups.push(() => alone.close());
    const expected = await runDemo(alone.client, { stream });

    const [a, b] = [await instance(), await instance()];
    const shared = await runDemo(alternating([a.client, b.client]), { stream });
    const strip = (run: typeof expected) => run.answers.map(({ message, finishReason }) => ({ content: message.content, tools: message.tool_calls?.map((call) => (call.type === 'function' ? call.function.name : '')), finishReason }));
    expect(strip(shared)).toEqual(strip(expected));
    expect(strip(expected)[0]!.content).toBe("I can't do that.");

    // No call named its session: both instances placed every call of the conversation in one session, through Redis.
    const placed = new Set([...a.sessionIds, ...b.sessionIds]);
    expect(placed.size).toBe(1);
    expect(a.sessionIds.length + b.sessionIds.length).toBe(shared.answers.length);
    const soloMonitorReport = await alone.monitor.report(alone.sessionIds[0]!);
    const sharedSession = await a.store.get([...placed][0]!);
    expect(sharedSession?.workflow.trace).toEqual(soloMonitorReport?.trace);
    expect(sharedSession?.workflow.refusals.map((refusal) => refusal.constraints)).toEqual([['verify_before_account_action']]);
    expect(a.store.misses()).toEqual({});
    expect(b.store.misses()).toEqual({});
  });
});

describe('Redis killed in the middle of a load run', () => {
  it('fails no request, reports degraded meanwhile, and shares sessions written after it is back', async () => {
    const [a, b] = [await instance(), await instance()];
    const total = 120;
    let done = 0;
    const statuses: number[] = [];
    let killed: Promise<void> | undefined;
    let degradedSeen = false;
    const oneCall = async (index: number) => {
      const target = index % 2 === 0 ? a : b;
      const response = await fetch(`${target.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-id': `load-${index % 10}` },
        body: JSON.stringify({ model: 'x', messages: OPENING }),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
      done++;
      if (done === 30) killed = redis.kill();
    };
    // Eight requests in flight at a time, a fixed count: the run ends by itself.
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < total) {
          const index = next++;
          await oneCall(index);
          if (killed && !degradedSeen) degradedSeen = (await json(await fetch(`${a.url}/healthz`))).status === 'degraded';
        }
      }),
    );
    await killed;
    expect(statuses).toHaveLength(total);
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(degradedSeen).toBe(true);
    expect(a.store.misses().unavailable ?? 0).toBeGreaterThan(0);

    await redis.restart();
    await expect.poll(async () => (await json(await fetch(`${a.url}/healthz`))).status, { timeout: 5000, interval: 50 }).toBe('ok');
    await expect.poll(async () => (await json(await fetch(`${b.url}/healthz`))).status, { timeout: 5000, interval: 50 }).toBe('ok');
    // A conversation after the outage, alternating between the instances, is shared whole.
    const after = await runDemo(alternating([a.client, b.client]), { stream: false, headers: { 'x-session-id': 'after-outage' } });
    expect(after.answers[0]!.message.content).toBe("I can't do that.");
    const session = await b.store.get('after-outage');
    expect(session?.workflow.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
  });
});
