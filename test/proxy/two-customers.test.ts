/**
 * Regression: the proxy placed a request with no session id by a hash of its system prompt and first user message,
 * so two customers who opened with the same words shared a session and one's identity check authorised the other's
 * refund, with one proxy and with two proxies on one Redis. Requests that name no session are now placed by their
 * conversation's whole history, through the store when it is shared.
 */
import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMonitor, loadWorkflow, type MonitorSession } from '../../src/index.js';
import { createProxy } from '../../src/proxy/index.js';
import { createRedisSessionStore } from '../../src/store/redis/index.js';
import { startRedisServer, type RedisServer } from '../store/redis-server.js';
import { startFakeUpstream, type FakeUpstream, type RequestBody, type ScriptedTurn } from './fake-upstream.js';
import { quietLogger, recordingClient, startProxy, SUPPORT_WORKFLOW, TOOLS } from './helpers.js';

const SYSTEM = 'You are a support agent for an online shop.';
const OPENING = 'Hi, I want a refund for order A-1042.';

/** A model that does what the customer's last words ask, with provider-style unique call ids. */
function obligingAgent(body: RequestBody): ScriptedTurn {
  const last = body.messages.at(-1)!;
  if (last.role === 'tool') return { content: 'Done.' };
  const said = String(last.content);
  if (said.startsWith('I am')) return { content: '', toolCalls: [{ id: `call_${randomUUID()}`, name: 'verify_identity', args: { account: said.slice(5) } }] };
  if (said.includes('go ahead')) return { content: '', toolCalls: [{ id: `call_${randomUUID()}`, name: 'issue_refund', args: { order: 'A-1042' } }] };
  return { content: 'Sure. Who am I speaking with?' };
}

/** One customer's conversation, sent through `client` a turn at a time, tool results added as an agent loop would. */
function customer(client: OpenAI) {
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM }];
  return async (says: string) => {
    messages.push({ role: 'user', content: says });
    for (;;) {
      const message = (await client.chat.completions.create({ model: 'x', messages, tools: TOOLS })).choices[0]!.message;
      messages.push({ role: 'assistant', content: message.content ?? '', ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}) } as ChatCompletionMessageParam);
      if (!message.tool_calls?.length) return message;
      for (const call of message.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: 'ok' });
    }
  };
}

/** Alice verifies and gets her refund; Bob opens with the same words and asks for his without verifying. */
async function scenario(alice: ReturnType<typeof customer>, bob: ReturnType<typeof customer>, { interleaved }: { interleaved: boolean }) {
  await alice(OPENING);
  if (interleaved) await bob(OPENING);
  await alice('I am Alice, account ACC-1');
  if (!interleaved) await bob(OPENING);
  const aliceRefund = await alice('Please go ahead with the refund.');
  const bobRefund = await bob('Please go ahead with the refund.');
  return { aliceRefund, bobRefund };
}

const refused = (message: { content: string | null; tool_calls?: unknown[] }) => !message.tool_calls?.length && message.content === "I can't do that.";

describe.each([false, true])('two customers, same opening, no session id (interleaved: %s)', (interleaved) => {
  it('one proxy: the second customer’s unverified refund is refused', async () => {
    const running = await startProxy(obligingAgent);
    try {
      const { aliceRefund, bobRefund } = await scenario(customer(running.client), customer(recordingClient(running.url).client), { interleaved });
      expect(refused(aliceRefund)).toBe(false);
      expect(refused(bobRefund)).toBe(true);
      expect(running.upstream.requests.filter((request) => JSON.stringify(request.body).includes('issue_refund')).length).toBeGreaterThan(0);
    } finally {
      await running.close();
    }
  });

  describe('two proxies on one Redis', () => {
    let redis: RedisServer;
    let upstream: FakeUpstream;
    const closers: Array<() => Promise<void>> = [];
    beforeAll(async () => {
      redis = await startRedisServer();
      upstream = await startFakeUpstream(obligingAgent);
    });
    afterEach(async () => {
      for (const close of closers.splice(0)) await close();
    });
    afterAll(async () => {
      await upstream.close();
      await redis.stop();
    });

    async function instance() {
      const logger = quietLogger();
      const store = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: `two-customers-${interleaved}:`, logger });
      await store.ready();
      const proxy = createProxy({ upstream: upstream.url, monitor: createMonitor({ workflow: await loadWorkflow(SUPPORT_WORKFLOW), store, logger }), port: 0, logger, conversations: store.conversations() });
      const { url } = await proxy.listen();
      closers.push(async () => {
        await proxy.close();
        await store.close();
      });
      return recordingClient(url).client;
    }

    it('the second customer’s unverified refund is refused, whichever proxy each call reaches', async () => {
      const [a, b] = [await instance(), await instance()];
      // Each customer's calls alternate between the two proxies, as behind a round-robin load balancer.
      let turn = 0;
      const balanced = (): OpenAI => ({ chat: { completions: { create: (...args: Parameters<OpenAI['chat']['completions']['create']>) => [a, b][turn++ % 2]!.chat.completions.create(...args) } } }) as unknown as OpenAI;
      const { aliceRefund, bobRefund } = await scenario(customer(balanced()), customer(balanced()), { interleaved });
      expect(refused(aliceRefund)).toBe(false);
      expect(refused(bobRefund)).toBe(true);
    });
  });
});

describe('requireSessionId', () => {
  it('refuses a chat completion that names no session with a 400 naming the header, and serves one that does', async () => {
    const running = await startProxy(obligingAgent, { proxy: { requireSessionId: true } });
    try {
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: OPENING }];
      const error = await running.client.chat.completions.create({ model: 'x', messages }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ status: 400, code: 'missing_session_id' });
      expect((error as Error).message).toContain('x-panoptes-session-id');
      expect(running.upstream.requests).toHaveLength(0);
      const ok = await running.client.chat.completions.create({ model: 'x', messages, user: 'customer-7' });
      expect(ok.choices[0]!.message.content).toBe('Sure. Who am I speaking with?');
    } finally {
      await running.close();
    }
  });
});
