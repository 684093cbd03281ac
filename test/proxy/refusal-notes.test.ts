/**
 * A call the proxy refuses shows its user a neutral message (`refusalMessage`, `refusal_message`), and its reason,
 * written for the model, reaches the model as guidance in the system prompt of the session's next call, once: for a
 * guard's refusal (a tool the request did not offer), a workflow's, and the calls of a withheld response; with the
 * official `openai` client (chat, streamed and not; the Responses API) and across two proxies on one real Redis.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMonitor, InvalidOptionError, loadWorkflow, parseWorkflow, type MonitorSession } from '../../src/index.js';
import { createProxy, loadServeConfig } from '../../src/proxy/index.js';
import { createRedisSessionStore } from '../../src/store/redis/index.js';
import { startRedisServer, type RedisServer } from '../store/redis-server.js';
import { startFakeUpstream, type RequestBody, type Script } from './fake-upstream.js';
import { OPENING, SUPPORT_WORKFLOW, ask, quietLogger, recordingClient, startProxy, type Running } from './helpers.js';
import { respond } from './responses-helpers.js';
import { LEAK, leakCritical } from './withheld-helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const SHOWN = "I can't do that.";
/** The request offers only the refund; the model calls the identity check, which the workflow allows: the guard refuses it. */
const ONLY_REFUND = [{ type: 'function' as const, function: { name: 'issue_refund', parameters: { type: 'object', properties: {} } } }];
const GUARD_REASON = 'The call to verify_identity was refused: it is not one of the tools this request offered (issue_refund; names are matched exactly), so it did not run.';

/** A model that calls verify_identity on the first turn of a conversation, and answers in text after. */
const verifyingFirst: Script = (body: RequestBody) =>
  body.messages.some((message) => message.role === 'assistant') || (Array.isArray(body.input) && body.input.length > 1)
    ? { content: 'How else can I help?' }
    : { content: '', toolCalls: [{ id: 'call_verify_0', name: 'verify_identity', args: { account: 'ACC-77' } }] };

/** The system prompt (chat) or instructions (Responses) of each request the upstream got. */
const systems = (run: Running) =>
  run.upstream.requests.map(({ body }) => String(body?.messages?.find((message) => message.role === 'system')?.content ?? (body as Record<string, unknown> | undefined)?.instructions ?? ''));
const count = (text: string, part: string) => text.split(part).length - 1;

describe.each([false, true])('chat completions through the official client (stream: %s)', (stream) => {
  it("a guard's refusal: the client reads only the message; the reason is in the next call's system prompt, once", async () => {
    running = await startProxy(verifyingFirst);
    const headers = { 'x-panoptes-session-id': `guard-${stream}` };
    const messages = [...OPENING];
    const runner = stream
      ? running.client.chat.completions.stream({ model: 'x', messages, tools: ONLY_REFUND }, { headers }).finalChatCompletion()
      : running.client.chat.completions.create({ model: 'x', messages, tools: ONLY_REFUND }, { headers });
    const { message } = (await runner).choices[0]!;
    expect(message.tool_calls ?? []).toEqual([]);
    expect(message.content).toBe(SHOWN);
    expect(JSON.stringify(message)).not.toMatch(/refused|offered|verify_identity/);

    messages.push({ role: 'assistant', content: message.content }, { role: 'user', content: 'Hello?' });
    await ask(running.client, messages, { stream, headers });
    messages.push({ role: 'assistant', content: 'How else can I help?' }, { role: 'user', content: 'Thanks.' });
    await ask(running.client, messages, { stream, headers });
    const [first, second, third] = systems(running);
    expect(count(first!, GUARD_REASON)).toBe(0);
    expect(count(second!, GUARD_REASON)).toBe(1);
    expect(second).toContain('[WORKFLOW GUIDANCE]');
    expect(count(third!, GUARD_REASON)).toBe(0);
  });

  it('a custom refusalMessage is what the client reads; a session placed by its history still finds itself', async () => {
    running = await startProxy(verifyingFirst, { proxy: { refusalMessage: 'Let me check with a colleague first.' } });
    const messages = [...OPENING];
    const first = await running.client.chat.completions.create({ model: 'x', messages, tools: ONLY_REFUND, stream: false });
    expect(first.choices[0]!.message.content).toBe('Let me check with a colleague first.');
    // No session named: the next request is placed by the history, the message as the client read it included.
    messages.push({ role: 'assistant', content: first.choices[0]!.message.content }, { role: 'user', content: 'Hello?' });
    await ask(running.client, messages, { stream, headers: {} });
    expect(new Set(running.sessionIds).size).toBe(1);
    expect(count(systems(running)[1]!, GUARD_REASON)).toBe(1);
  });
});

describe('the Responses API through the official client', () => {
  it.each([false, true])("a guard's refusal reaches the next call's instructions once (stream: %s)", async (stream) => {
    running = await startProxy(verifyingFirst);
    const headers = { 'x-panoptes-session-id': `responses-${stream}` };
    const tools = [{ type: 'function', name: 'issue_refund', parameters: { type: 'object', properties: {} }, strict: false }];
    const input = [{ role: 'user', content: 'Hi, I want a refund for order A-1042, it arrived broken.' }];
    const { response } = await respond(running.client, { input, tools }, { stream, headers });
    expect(response.output_text).toBe(SHOWN);
    await respond(running.client, { input: [...input, { role: 'assistant', content: SHOWN }, { role: 'user', content: 'Hello?' }], tools }, { stream, headers });
    const [first, second] = systems(running);
    expect(count(first!, GUARD_REASON)).toBe(0);
    expect(count(second!, GUARD_REASON)).toBe(1);
  });
});

describe("a workflow's refusal", () => {
  const REFUND_REASON = "The call to issue_refund was refused and did not run. It would break the rule 'verify_before_account_action'";
  const refunding: Script = (body) => (body.messages.some((message) => message.role === 'assistant') ? { content: 'OK.' } : { content: '', toolCalls: [{ id: 'call_refund_0', name: 'issue_refund', args: { order: 'A-1042' } }] });

  it.each([
    ['its own intervention, which does not show the reason: the reason is added to it', readFileSync(SUPPORT_WORKFLOW, 'utf8')],
    ['the built-in guidance, which shows the reason already: it is not repeated', readFileSync(SUPPORT_WORKFLOW, 'utf8').replace('    intervention: verify_first\n', '')],
  ])('with %s', async (_case, yaml) => {
    running = await startProxy(refunding, { monitor: { workflow: parseWorkflow(yaml) } });
    const headers = { 'x-panoptes-session-id': 'workflow-refusal' };
    const { message } = await ask(running.client, OPENING, { stream: false, headers });
    expect(message.content).toBe(SHOWN);
    await ask(running.client, [...OPENING, { role: 'assistant', content: SHOWN }, { role: 'user', content: 'Hello?' }], { stream: false, headers });
    expect(count(systems(running)[1]!, REFUND_REASON)).toBe(1);
  });
});

describe('the calls of a withheld response', () => {
  it('are refused, and the next call is told they did not run', async () => {
    let call = 0;
    // A call to a tool of no state of the workflow: the answer is classified by its text, which leaks, so it is withheld.
    running = await startProxy(() => (call++ === 0 ? { content: LEAK, toolCalls: [{ id: 'call_lookup_0', name: 'lookup_order', args: {} }] } : { content: 'How can I help?' }), { monitor: { workflow: leakCritical } });
    const headers = { 'x-panoptes-session-id': 'withheld' };
    const { message } = await ask(running.client, OPENING, { stream: false, headers });
    expect(message.tool_calls ?? []).toEqual([]);
    expect(message.content).not.toContain('internal notes');
    await ask(running.client, [...OPENING, { role: 'assistant', content: message.content }, { role: 'user', content: 'Hello?' }], { stream: false, headers });
    expect(count(systems(running)[1]!, 'The call to lookup_order was refused: the response that made it was withheld, so it did not run.')).toBe(1);
  });
});

describe('configuration', () => {
  it('refusal_message from the file or PANOPTES_REFUSAL_MESSAGE; an empty one is refused at load', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-refusal-'));
    const path = join(folder, 'panoptes.yaml');
    writeFileSync(path, `upstream: http://127.0.0.1:8000/v1\nworkflow: ${SUPPORT_WORKFLOW}\nrefusal_message: "Not possible, sorry."\n`);
    expect((await loadServeConfig({ configPath: path, env: {} })).refusalMessage).toBe('Not possible, sorry.');
    expect((await loadServeConfig({ configPath: path, env: { PANOPTES_REFUSAL_MESSAGE: 'Nope.' } })).refusalMessage).toBe('Nope.');
    writeFileSync(path, `upstream: http://127.0.0.1:8000/v1\nworkflow: ${SUPPORT_WORKFLOW}\n`);
    expect((await loadServeConfig({ configPath: path, env: {} })).refusalMessage).toBeUndefined();
    writeFileSync(path, `upstream: http://127.0.0.1:8000/v1\nworkflow: ${SUPPORT_WORKFLOW}\nrefusal_message: ""\n`);
    await expect(loadServeConfig({ configPath: path, env: {} })).rejects.toThrow(/panoptes\.yaml:3:\d+.*refusal_message.*not a non-empty string/s);
  });

  it('createProxy refuses a refusalMessage with no text', async () => {
    const monitor = createMonitor({ workflow: await loadWorkflow(SUPPORT_WORKFLOW) });
    for (const refusalMessage of ['', '  ', 42 as unknown as string]) {
      expect(() => createProxy({ upstream: 'http://127.0.0.1:1/v1', monitor, port: 0, refusalMessage })).toThrow(InvalidOptionError);
    }
  });
});

describe('two proxies on one Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it.each([false, true])('a refusal on one instance is explained to the model on the other (stream: %s)', async (stream) => {
    const upstream = await startFakeUpstream(verifyingFirst);
    const cleanups: Array<() => Promise<void>> = [async () => void (await upstream.close())];
    try {
      const instance = async () => {
        const logger = quietLogger();
        const store = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: `notes-${stream}:`, logger });
        await store.ready();
        const monitor = createMonitor({ workflow: await loadWorkflow(SUPPORT_WORKFLOW), store, logger });
        const proxy = createProxy({ upstream: upstream.url, monitor, port: 0, logger, conversations: store.conversations(), responseRecords: store.responses() });
        const { url } = await proxy.listen();
        cleanups.push(async () => {
          await proxy.close();
          await store.close();
        });
        return { store, ...recordingClient(url) };
      };
      const [a, b] = [await instance(), await instance()];
      const headers = { 'x-panoptes-session-id': 'shared-notes' };
      const ask2 = (client: OpenAI, messages: Parameters<typeof ask>[1]) =>
        stream ? client.chat.completions.stream({ model: 'x', messages, tools: ONLY_REFUND }, { headers }).finalChatCompletion() : client.chat.completions.create({ model: 'x', messages, tools: ONLY_REFUND }, { headers });
      const first = await ask2(a.client, OPENING);
      expect(first.choices[0]!.message.content).toBe(SHOWN);
      const history = [...OPENING, { role: 'assistant' as const, content: SHOWN }, { role: 'user' as const, content: 'Hello?' }];
      await ask2(b.client, history);
      await ask2(a.client, [...history, { role: 'assistant', content: 'How else can I help?' }, { role: 'user', content: 'Thanks.' }]);
      const sent = upstream.requests.map(({ body }) => String(body!.messages[0]!.content));
      expect(sent.map((system) => count(system, GUARD_REASON))).toEqual([0, 1, 0]);
      expect(a.store.misses()).toEqual({});
      expect(b.store.misses()).toEqual({});
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }
  });
});
