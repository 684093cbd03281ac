/**
 * `conversation` rubrics in the proxy, through the official `openai` client (chat completions streamed and not, the
 * Responses API) and `@anthropic-ai/sdk`: the transcript with each delivered answer is judged in the background every
 * `every_turns` answers (or after a warning), and a failing finding reaches the model in the system prompt of the
 * session's next request. A judge that hangs never delays an answer; its timeout and the judgments it crowds out are
 * counted.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createJudge, namedJudgeModel, parseRubrics } from '../../src/index.js';
import { DRIFT, ON_TOPIC, WARNED, conversationJudge, driftingAgent, systemOf } from './conversation-helpers.js';
import { nextGuidance, startProxy, type Running } from './helpers.js';
import { PLAIN_WORKFLOW, metricValue } from './judge-helpers.js';
import { respond } from './responses-helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(rubrics = ON_TOPIC, judge = conversationJudge(rubrics)) {
  running = await startProxy(driftingAgent, { monitor: { workflow: PLAIN_WORKFLOW }, proxy: { judge: judge.judge }, anthropic: true });
  return { run: running, calls: judge.calls };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([false, true])('chat completions, a conversation rubric every 2 answers (stream: %s)', (stream) => {
  async function chat(run: Running, messages: ChatCompletionMessageParam[], session: string) {
    const options = { headers: { 'x-panoptes-session-id': session } };
    const completion = stream
      ? await run.client.chat.completions.stream({ model: 'fake-model', messages }, options).finalChatCompletion()
      : await run.client.chat.completions.create({ model: 'fake-model', messages }, options);
    return completion.choices[0]!.message.content ?? '';
  }

  it('is judged on the 2nd answer, and its finding is in the system prompt of the 3rd request', async () => {
    const { run, calls } = await start();
    const session = `drift-${stream}`;
    const conversation: ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are a support agent.' }, { role: 'user', content: 'Where is my order A-1042?' }];
    conversation.push({ role: 'assistant', content: await chat(run, conversation, session) });
    await sleep(50);
    expect(calls).toEqual([]); // one answer: not due yet
    conversation.push({ role: 'user', content: 'Any news?' });
    const second = await chat(run, conversation, session);
    expect(second).toContain('weather'); // delivered at once, whatever the judge finds
    // The answer just delivered is in the judged transcript: the request itself never carried it.
    await vi.waitFor(async () => expect(await nextGuidance(run.monitor, session)).toContain('[CONVERSATION REVIEW]'), { timeout: 5000 });
    expect(calls).toEqual(['on_topic']);
    conversation.push({ role: 'assistant', content: second }, { role: 'user', content: 'And the refund?' });
    await chat(run, conversation, session);
    const system = systemOf(run.upstream.requests[2]);
    expect(system).toContain('[CONVERSATION REVIEW]');
    expect(system).toContain(DRIFT);
    expect(systemOf(run.upstream.requests[1])).not.toContain('[CONVERSATION REVIEW]');
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'on_topic', scope: 'conversation', outcome: 'fail', action: 'intervene' })).toBe(1);
  });
});

describe('a conversation rubric on the other routes', () => {
  it('the Responses API, official openai client, streamed', async () => {
    const { run, calls } = await start();
    const headers = { 'x-panoptes-session-id': 'responses-drift' };
    const input: Array<{ role: 'user' | 'assistant'; content: string }> = [{ role: 'user', content: 'Where is my order A-1042?' }];
    input.push({ role: 'assistant', content: (await respond(run.client, { model: 'fake-model', input }, { stream: true, headers })).response.output_text });
    input.push({ role: 'user', content: 'Any news?' });
    input.push({ role: 'assistant', content: (await respond(run.client, { model: 'fake-model', input }, { stream: true, headers })).response.output_text });
    await vi.waitFor(async () => expect(await nextGuidance(run.monitor, 'responses-drift')).toContain(DRIFT), { timeout: 5000 });
    input.push({ role: 'user', content: 'And the refund?' });
    await respond(run.client, { model: 'fake-model', input }, { stream: true, headers });
    expect(systemOf(run.upstream.requests[2])).toContain(DRIFT);
    expect(calls).toEqual(['on_topic']);
  });

  it('Anthropic Messages, official @anthropic-ai/sdk client, not streamed', async () => {
    const { run, calls } = await start();
    const client = new Anthropic({ baseURL: run.url, apiKey: 'sk-ant-test', maxRetries: 0 });
    const options = { headers: { 'x-panoptes-session-id': 'anthropic-drift' } };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Where is my order A-1042?' }];
    const text = (message: Anthropic.Message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    messages.push({ role: 'assistant', content: text(await client.messages.create({ model: 'claude-fake', max_tokens: 256, messages }, options)) });
    messages.push({ role: 'user', content: 'Any news?' });
    messages.push({ role: 'assistant', content: text(await client.messages.create({ model: 'claude-fake', max_tokens: 256, messages }, options)) });
    await vi.waitFor(async () => expect(await nextGuidance(run.monitor, 'anthropic-drift')).toContain(DRIFT), { timeout: 5000 });
    messages.push({ role: 'user', content: 'And the refund?' });
    await client.messages.create({ model: 'claude-fake', max_tokens: 256, messages }, options);
    expect(systemOf(run.upstream.requests[2])).toContain(DRIFT);
    expect(calls).toEqual(['on_topic']);
  });
});

describe('when the conversation is judged', () => {
  it('a turn rubric that warns makes the conversation due at once', async () => {
    const { run, calls } = await start(WARNED);
    const ask = (messages: ChatCompletionMessageParam[]) => run.client.chat.completions.create({ model: 'fake-model', messages }, { headers: { 'x-panoptes-session-id': 'warned' } });
    // Two answers, one warned about: every_turns is 5, so only the warning makes the conversation due.
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Where is my order A-1042?' }];
    messages.push({ role: 'assistant', content: (await ask(messages)).choices[0]!.message.content ?? '' }, { role: 'user', content: 'Any news?' });
    await sleep(50);
    expect(calls).toEqual(['no_weather']);
    await ask(messages);
    await vi.waitFor(async () => expect(await nextGuidance(run.monitor, 'warned')).toContain(DRIFT), { timeout: 5000 });
    expect(calls.sort()).toEqual(['no_weather', 'no_weather', 'on_topic']);
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'no_weather', scope: 'turn', action: 'warn' })).toBe(1);
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'on_topic', scope: 'conversation', outcome: 'fail' })).toBe(1);
  });

  it('a judge that hangs delays no answer; its timeout, and the judgment it crowds out, are counted', async () => {
    const rubrics = parseRubrics(ON_TOPIC.replace('every_turns: 2', 'every_turns: 1'), { source: 'conversation.rubrics.yaml' });
    const judge = createJudge({ model: namedJudgeModel('hangs', () => new Promise(() => undefined)), rubrics, timeoutMs: 3000, logger: { warn: () => undefined } });
    running = await startProxy(driftingAgent, { monitor: { workflow: PLAIN_WORKFLOW }, proxy: { judge } });
    const run = running;
    const ask = (content: string) => run.client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content }] }, { headers: { 'x-panoptes-session-id': 'hang' } });
    const started = Date.now();
    await ask('Where is my order A-1042?');
    // The session's judgment is still in flight: the second answer's is not started, and counted.
    await ask('Any news?');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await metricValue(run.url, 'panoptes_proxy_judge_misses_total', { cause: 'busy' })).toBe(1);
    expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { scope: 'conversation' })).toBe(0);
    await vi.waitFor(async () => expect(await metricValue(run.url, 'panoptes_proxy_judgments_total', { rubric: 'on_topic', scope: 'conversation', outcome: 'error', action: 'allow' })).toBe(1), { timeout: 8000, interval: 200 });
    expect(await metricValue(run.url, 'panoptes_proxy_judge_misses_total', { rubric: 'on_topic', cause: 'timeout' })).toBe(1);
    // on_error: allow, so nothing for the model.
    expect(await nextGuidance(run.monitor, 'hang')).not.toContain('[CONVERSATION REVIEW]');
  }, 15_000);

  it('close() waits for a judgment in flight, whose finding is noted', async () => {
    const rubrics = parseRubrics(ON_TOPIC.replace('every_turns: 2', 'every_turns: 1'), { source: 'conversation.rubrics.yaml' });
    const slow = namedJudgeModel('slow', async () => {
      await sleep(300);
      return { criteria: [{ id: 'topic', score: 0, reasoning: DRIFT, evidence: [] }], confidence: 0.9 };
    });
    const judge = createJudge({ model: slow, rubrics, logger: { warn: () => undefined } });
    const run = await startProxy(driftingAgent, { monitor: { workflow: PLAIN_WORKFLOW }, proxy: { judge } });
    await run.client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'Where is my order?' }] }, { headers: { 'x-panoptes-session-id': 'closing' } });
    expect(await nextGuidance(run.monitor, 'closing')).not.toContain(DRIFT);
    await run.close();
    expect(await nextGuidance(run.monitor, 'closing')).toContain(DRIFT);
  });
});
