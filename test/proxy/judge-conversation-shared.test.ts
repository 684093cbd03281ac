/**
 * Conversation rubrics with two proxy instances on one Redis: the finding of a judgment one instance ran reaches the
 * model through the other, since it is noted in the session store rather than kept in the judging instance.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { createMonitor, type Monitor, type MonitorSession } from '../../src/index.js';
import { createProxy } from '../../src/proxy/index.js';
import { createRedisSessionStore } from '../../src/store/redis/index.js';
import { startRedisServer, type RedisServer } from '../store/redis-server.js';
import { DRIFT, conversationJudge, driftingAgent, systemOf } from './conversation-helpers.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { nextGuidance, quietLogger, recordingClient } from './helpers.js';
import { PLAIN_WORKFLOW } from './judge-helpers.js';

let redis: RedisServer;
let upstream: FakeUpstream;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  redis = await startRedisServer();
  upstream = await startFakeUpstream(driftingAgent);
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await upstream.close();
  await redis.stop();
});

/** One proxy instance with its own monitor, Redis client and judge, as a separate process would have. */
async function instance(): Promise<{ monitor: Monitor; client: ReturnType<typeof recordingClient>['client']; calls: string[] }> {
  const logger = quietLogger();
  const store = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: 'conversation:', logger });
  await store.ready();
  const monitor = createMonitor({ workflow: PLAIN_WORKFLOW, store, logger });
  const { judge, calls } = conversationJudge();
  const proxy = createProxy({ upstream: upstream.url, monitor, port: 0, logger, judge, storeHealthy: () => store.healthy });
  const { url } = await proxy.listen();
  cleanups.push(async () => {
    await proxy.close();
    await store.close();
  });
  return { monitor, client: recordingClient(url).client, calls };
}

it("an instance's conversation finding reaches the model through another instance", async () => {
  const [a, b] = [await instance(), await instance()];
  const options = { headers: { 'x-panoptes-session-id': 'shared-drift' } };
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Where is my order A-1042?' }];
  const ask = async (through: typeof a) => (await through.client.chat.completions.create({ model: 'fake-model', messages }, options)).choices[0]!.message.content ?? '';
  messages.push({ role: 'assistant', content: await ask(a) }, { role: 'user', content: 'Any news?' });
  messages.push({ role: 'assistant', content: await ask(a) }, { role: 'user', content: 'And the refund?' });
  await vi.waitFor(async () => expect(await nextGuidance(b.monitor, 'shared-drift')).toContain(DRIFT), { timeout: 5000 });
  expect(a.calls).toEqual(['on_topic']);
  await ask(b);
  expect(systemOf(upstream.requests[2])).toContain(`[CONVERSATION REVIEW]`);
  expect(systemOf(upstream.requests[2])).toContain(DRIFT);
  expect(b.calls).toEqual([]);
});
