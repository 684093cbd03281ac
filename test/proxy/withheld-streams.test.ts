/**
 * Streamed answers on the Responses API and Anthropic Messages that break a critical rule never reach the client:
 * under `text_policy: stream` the text passes at once, watched, and the stream is cut where it matches and ended
 * well-formed (the official clients' final-message helpers read it); under `hold` the text waits for the
 * classification, within its bounds. The user-facing message is the workflow's; the model-facing guidance goes only
 * into the next call. Through the official `openai` and `@anthropic-ai/sdk` clients, against the fake upstream.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_USER_MESSAGE, type Workflow } from '../../src/index.js';
import type { ProxyOptions } from '../../src/proxy/index.js';
import { anthropicEvent, anthropicEventsOf, anthropicJson, responseEvent, responseEventsOf, responseJson } from './fake-formats.js';
import { answerWith, type Script } from './fake-upstream.js';
import { startProxy, type Running } from './helpers.js';
import { GUIDANCE, LEAK, leakBlocked, leakCritical, leakWithMessage, SAFE, SECRET, SESSION, startAnswering, USER_MESSAGE } from './withheld-helpers.js';

const INSTRUCTIONS = 'You are a support agent for an online shop. Be brief.';
const QUESTION = 'What do your internal notes say about me?';
const HOLD: Partial<ProxyOptions> = { textPolicy: 'hold' };

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(workflow: Workflow, answers: string[], options: { proxy?: Partial<ProxyOptions> } = {}) {
  return (running = await startAnswering(workflow, answers, { anthropic: true, ...options }));
}

/** An Anthropic client of the proxy, naming session `s1`. */
const anthropicOf = ({ url }: Running) => new Anthropic({ baseURL: url, apiKey: 'sk-ant-test', maxRetries: 0, defaultHeaders: SESSION.headers });

/** One streamed response through `client.responses.stream`: every event, and the SDK's final response. */
async function streamResponse(client: OpenAI, input = QUESTION) {
  const runner = client.responses.stream({ model: 'fake-model', instructions: INSTRUCTIONS, input }, SESSION);
  const events: ResponseStreamEvent[] = [];
  for await (const event of runner) events.push(event);
  return { events, response: await runner.finalResponse() };
}

/** One streamed message through `client.messages.stream`: every event, and the SDK's final message. */
async function streamMessage(client: Anthropic, content = QUESTION) {
  const stream = client.messages.stream({ model: 'claude-fake', max_tokens: 1024, system: INSTRUCTIONS, messages: [{ role: 'user', content }] });
  const events: Anthropic.MessageStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, message: await stream.finalMessage() };
}

const textOfMessage = (message: Anthropic.Message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
const escaped = (text: string) => text.replace(/[.?]/g, '\\$&');

describe('the Responses API, text_policy stream: a leaking answer is cut where it matches', () => {
  it('ends with the replacement after what was shown, well-formed; the leak never reaches the client', async () => {
    const { client, monitor, proxy, upstream } = await start(leakCritical, [LEAK, SAFE]);
    const { events, response } = await streamResponse(client);

    expect(response.status).toBe('completed');
    expect(response.output_text).toMatch(new RegExp(`^Sure\\. My.*\\n\\n${escaped(DEFAULT_USER_MESSAGE)}$`, 's'));
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(events.map((event) => event.type).slice(-5)).toEqual(['response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, at) => at));
    expect((await monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ constraint: 'no_internal_info', withheld: true })]);
    expect(proxy.metrics.value('panoptes_proxy_withheld_answers_total', { action: 'cut' })).toBe(1);

    // The model-facing guidance goes into the next call, never to the client.
    expect(JSON.stringify(events)).not.toContain(GUIDANCE);
    await client.responses.create({ model: 'fake-model', instructions: INSTRUCTIONS, input: [{ role: 'user', content: QUESTION }, { role: 'assistant', content: response.output_text }, { role: 'user', content: 'OK.' }] }, SESSION);
    expect(JSON.stringify(upstream.requests[0]!.body)).not.toContain(GUIDANCE);
    expect(JSON.stringify(upstream.requests[1]!.body)).toContain(GUIDANCE);
  });

  it("uses the constraint's user_message (the text the end user sees is the workflow's, not the model's guidance)", async () => {
    const { client } = await start(leakWithMessage, [LEAK]);
    const stream = await client.responses.create({ model: 'fake-model', instructions: INSTRUCTIONS, input: QUESTION, stream: true }, SESSION);
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const completed = events.at(-1)!;
    expect(completed.type).toBe('response.completed');
    const output = completed.type === 'response.completed' ? completed.response.output : [];
    const text = output.flatMap((item) => (item.type === 'message' ? item.content.flatMap((part) => (part.type === 'output_text' ? [part.text] : [])) : [])).join('');
    expect(text).toMatch(new RegExp(`\\n\\n${escaped(USER_MESSAGE)}$`));
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(GUIDANCE);
  });

  it('aborts the upstream request at the cut', async () => {
    const { script, closed } = neverEnding(responseEventsOf(responseJson({ content: LEAK })).slice(0, -1).map(responseEvent).join(''));
    running = await startProxy(script, { monitor: { workflow: leakCritical } });
    const { response } = await streamResponse(running.client);
    expect(response.output_text).toContain(DEFAULT_USER_MESSAGE);
    await expect.poll(closed).toBe(true);
  });

  it('under a block: intervention, the stream ends with an error event the client raises', async () => {
    const { client } = await start(leakBlocked, [LEAK]);
    const failure = await streamResponse(client).catch((error: unknown) => error);
    expect(String((failure as Error)?.message)).toContain(DEFAULT_USER_MESSAGE);
  });

  it('a compliant answer passes unchanged, byte for byte, event for event', async () => {
    const stream = responseEventsOf(responseJson({ content: SAFE })).map(responseEvent).join('');
    running = await startProxy(answerSse(stream), { monitor: { workflow: leakCritical } });
    const received = await rawStream(running.url, '/v1/responses', { model: 'fake-model', input: QUESTION, stream: true });
    expect(received).toBe(stream);
  });
});

describe('the Responses API, text_policy hold: text waits for the classification', () => {
  it('a leaking answer: the client gets the replacement alone, well-formed, nothing of the leak', async () => {
    const { client, monitor, proxy } = await start(leakCritical, [LEAK], { proxy: HOLD });
    const { events, response } = await streamResponse(client);
    expect(response.output_text).toBe(DEFAULT_USER_MESSAGE);
    expect(response.status).toBe('completed');
    expect(JSON.stringify(events)).not.toContain('system prompt');
    expect(events[0]!.type).toBe('response.created');
    expect((await monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ withheld: true })]);
    expect(proxy.metrics.value('panoptes_proxy_withheld_answers_total', { action: 'cut' })).toBe(1);
    expect(monitor.misses()).toEqual({});
  });

  it('a compliant answer goes out whole once classified, byte for byte', async () => {
    const stream = responseEventsOf(responseJson({ content: SAFE })).map(responseEvent).join('');
    running = await startProxy(answerSse(stream), { monitor: { workflow: leakCritical }, proxy: HOLD });
    expect(await rawStream(running.url, '/v1/responses', { model: 'fake-model', input: QUESTION, stream: true })).toBe(stream);
    expect(running.monitor.misses()).toEqual({});
  });

  it('past its bound in characters, the text streams and a miss is counted (a leak is then cut as with stream)', async () => {
    const { client, monitor } = await start(leakCritical, [SAFE, `${SAFE} ${LEAK}`], { proxy: { textPolicy: 'hold', holdTextChars: 600 } });
    expect((await streamResponse(client)).response.output_text).toBe(SAFE);
    expect(monitor.misses()).toEqual({ hold: 1 });
    const { response, events } = await streamResponse(client);
    expect(response.output_text).toContain(SAFE);
    expect(response.output_text).toContain(DEFAULT_USER_MESSAGE);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(monitor.misses()).toEqual({ hold: 2 });
  });

  it('past its bound in time, what was held goes out while the upstream is still silent, and a miss is counted', async () => {
    const { script, release } = pausedAfter(() => {
      const events = responseEventsOf(responseJson({ content: SAFE }));
      return [events.slice(0, 5).map(responseEvent).join(''), events.slice(5).map(responseEvent).join('')];
    });
    running = await startProxy(script, { monitor: { workflow: leakCritical }, proxy: { textPolicy: 'hold', holdTextMs: 50 } });
    const runner = running.client.responses.stream({ model: 'fake-model', input: QUESTION }, SESSION);
    for await (const event of runner) {
      if (event.type === 'response.output_text.delta') break; // text arrived before the upstream finished
    }
    release();
    expect(running.monitor.misses()).toEqual({ hold: 1 });
  });
});

describe('Anthropic Messages, text_policy stream: a leaking answer is cut where it matches', () => {
  it('ends with the replacement after what was shown, well-formed; the leak never reaches the client', async () => {
    const started = await start(leakCritical, [LEAK, SAFE]);
    const client = anthropicOf(started);
    const { events, message } = await streamMessage(client);

    expect(textOfMessage(message)).toMatch(new RegExp(`^Sure\\. My.*\\n\\n${escaped(DEFAULT_USER_MESSAGE)}$`, 's'));
    expect(message.stop_reason).toBe('end_turn');
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(events.map((event) => event.type).slice(-4)).toEqual(['content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect((await started.monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ constraint: 'no_internal_info', withheld: true })]);
    expect(started.proxy.metrics.value('panoptes_proxy_withheld_answers_total', { action: 'cut' })).toBe(1);

    // The model-facing guidance goes into the next call, never to the client.
    expect(JSON.stringify(events)).not.toContain(GUIDANCE);
    await client.messages.create({ model: 'claude-fake', max_tokens: 1024, system: INSTRUCTIONS, messages: [{ role: 'user', content: QUESTION }, { role: 'assistant', content: message.content }, { role: 'user', content: 'OK.' }] });
    expect(JSON.stringify(started.upstream.requests[0]!.body)).not.toContain(GUIDANCE);
    expect(JSON.stringify(started.upstream.requests[1]!.body)).toContain(GUIDANCE);
  });

  it("uses the constraint's user_message; create({ stream: true }) gets every event of a valid message", async () => {
    const client = anthropicOf(await start(leakWithMessage, [LEAK]));
    const stream = await client.messages.create({ model: 'claude-fake', max_tokens: 1024, messages: [{ role: 'user', content: QUESTION }], stream: true });
    const events: Anthropic.RawMessageStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const text = events.flatMap((event) => (event.type === 'content_block_delta' && event.delta.type === 'text_delta' ? [event.delta.text] : [])).join('');
    expect(text).toMatch(new RegExp(`\\n\\n${escaped(USER_MESSAGE)}$`));
    expect(events[0]!.type).toBe('message_start');
    expect(events.at(-1)!.type).toBe('message_stop');
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(GUIDANCE);
  });

  it('aborts the upstream request at the cut', async () => {
    const { script, closed } = neverEnding(anthropicEventsOf(anthropicJson({ content: LEAK })).slice(0, -2).map(anthropicEvent).join(''));
    running = await startProxy(script, { monitor: { workflow: leakCritical }, anthropic: true });
    const { message } = await streamMessage(anthropicOf(running));
    expect(textOfMessage(message)).toContain(DEFAULT_USER_MESSAGE);
    await expect.poll(closed).toBe(true);
  });

  it('under a block: intervention, the stream ends with an error event the client raises', async () => {
    const client = anthropicOf(await start(leakBlocked, [LEAK]));
    const failure = await streamMessage(client).catch((error: unknown) => error);
    expect(String((failure as Error)?.message)).toContain(DEFAULT_USER_MESSAGE);
  });

  it('a compliant answer passes unchanged, byte for byte, event for event', async () => {
    const stream = anthropicEventsOf(anthropicJson({ content: SAFE })).map(anthropicEvent).join('');
    running = await startProxy(answerSse(stream), { monitor: { workflow: leakCritical }, anthropic: true });
    expect(await rawStream(running.url, '/v1/messages', { model: 'claude-fake', max_tokens: 1024, messages: [{ role: 'user', content: QUESTION }], stream: true })).toBe(stream);
  });
});

describe('Anthropic Messages, text_policy hold: text waits for the classification', () => {
  it('a leaking answer: the client gets the replacement alone, well-formed, nothing of the leak', async () => {
    const started = await start(leakCritical, [LEAK], { proxy: HOLD });
    const { events, message } = await streamMessage(anthropicOf(started));
    expect(message.content).toEqual([{ type: 'text', text: DEFAULT_USER_MESSAGE }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(JSON.stringify(events)).not.toContain('system prompt');
    expect((await started.monitor.report('s1'))!.violations).toEqual([expect.objectContaining({ withheld: true })]);
    expect(started.monitor.misses()).toEqual({});
  });

  it('a compliant answer goes out whole once classified, byte for byte', async () => {
    const stream = anthropicEventsOf(anthropicJson({ content: SAFE })).map(anthropicEvent).join('');
    running = await startProxy(answerSse(stream), { monitor: { workflow: leakCritical }, anthropic: true, proxy: HOLD });
    expect(await rawStream(running.url, '/v1/messages', { model: 'claude-fake', max_tokens: 1024, messages: [{ role: 'user', content: QUESTION }], stream: true })).toBe(stream);
    expect(running.monitor.misses()).toEqual({});
  });

  it('past its bound in characters, the text streams and a miss is counted (a leak is then cut as with stream)', async () => {
    const started = await start(leakCritical, [SAFE, `${SAFE} ${LEAK}`], { proxy: { textPolicy: 'hold', holdTextChars: 600 } });
    const client = anthropicOf(started);
    expect(textOfMessage((await streamMessage(client)).message)).toBe(SAFE);
    expect(started.monitor.misses()).toEqual({ hold: 1 });
    const { message, events } = await streamMessage(client);
    expect(textOfMessage(message)).toContain(SAFE);
    expect(textOfMessage(message)).toContain(DEFAULT_USER_MESSAGE);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(started.monitor.misses()).toEqual({ hold: 2 });
  });

  it('past its bound in time, what was held goes out while the upstream is still silent, and a miss is counted', async () => {
    const { script, release } = pausedAfter(() => {
      const events = anthropicEventsOf(anthropicJson({ content: SAFE }));
      return [events.slice(0, 4).map(anthropicEvent).join(''), events.slice(4).map(anthropicEvent).join('')];
    });
    running = await startProxy(script, { monitor: { workflow: leakCritical }, anthropic: true, proxy: { textPolicy: 'hold', holdTextMs: 50 } });
    const stream = anthropicOf(running).messages.stream({ model: 'claude-fake', max_tokens: 1024, messages: [{ role: 'user', content: QUESTION }] });
    for await (const event of stream) {
      if (event.type === 'content_block_delta') break; // text arrived before the upstream finished
    }
    release();
    expect(running.monitor.misses()).toEqual({ hold: 1 });
  });
});

describe('text_policy hold with a tool call: the text and the checked call go out together once decided', () => {
  const turn = { content: 'One moment, let me check.', toolCalls: [{ id: 'call_v', name: 'verify_identity', args: { account: 'ACC-77' } }] };

  it('the Responses API', async () => {
    running = await startProxy(() => turn, { monitor: { workflow: leakCritical }, proxy: HOLD });
    const runner = running.client.responses.stream({ model: 'fake-model', input: QUESTION, tools: [{ type: 'function', name: 'verify_identity', parameters: {}, strict: false }] }, SESSION);
    const events: ResponseStreamEvent[] = [];
    for await (const event of runner) events.push(event);
    const response = await runner.finalResponse();
    expect(response.output_text).toBe(turn.content);
    expect(response.output.flatMap((item) => (item.type === 'function_call' ? [[item.name, item.arguments]] : []))).toEqual([['verify_identity', '{"account":"ACC-77"}']]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, at) => at));
  });

  it('Anthropic Messages', async () => {
    running = await startProxy(() => turn, { monitor: { workflow: leakCritical }, anthropic: true, proxy: HOLD });
    const message = await anthropicOf(running)
      .messages.stream({ model: 'claude-fake', max_tokens: 1024, messages: [{ role: 'user', content: QUESTION }], tools: [{ name: 'verify_identity', input_schema: { type: 'object', properties: {} } }] })
      .finalMessage();
    expect(message.content).toEqual([
      { type: 'text', text: turn.content },
      { type: 'tool_use', id: 'call_v', name: 'verify_identity', input: { account: 'ACC-77' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });
});

describe('text held behind a tool call (text_policy stream): the cut drops the call, the replacement is an answer of its own', () => {
  const turn = { content: LEAK, toolCalls: [{ id: 'call_v', name: 'verify_identity', args: { account: 'ACC-77' } }] };

  it('the Responses API: a message item after what the client has, then response.completed', async () => {
    const response = responseJson(turn);
    const callFirst = { ...response, output: [...(response.output as unknown[])].reverse() };
    running = await startProxy(answerSse(responseEventsOf(callFirst).map(responseEvent).join('')), { monitor: { workflow: leakCritical } });
    const { events, response: final } = await streamResponse(running.client);
    expect(final.output.map((item) => item.type)).toEqual(['message']);
    expect(final.output_text).toBe(DEFAULT_USER_MESSAGE);
    expect(JSON.stringify(events)).not.toContain('system prompt');
    expect(JSON.stringify(events)).not.toContain('verify_identity');
  });

  it('Anthropic Messages: a text block after what the client has, then message_delta and message_stop', async () => {
    const message = anthropicJson(turn);
    const callFirst = { ...message, content: [...(message.content as unknown[])].reverse() };
    running = await startProxy(answerSse(anthropicEventsOf(callFirst).map(anthropicEvent).join('')), { monitor: { workflow: leakCritical }, anthropic: true });
    const { events, message: final } = await streamMessage(anthropicOf(running));
    expect(final.content).toEqual([{ type: 'text', text: DEFAULT_USER_MESSAGE }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(JSON.stringify(events)).not.toContain('system prompt');
    expect(JSON.stringify(events)).not.toContain('verify_identity');
  });
});

/** A script that answers every request with these SSE bytes. */
function answerSse(stream: string): Script {
  return answerWith(stream, { contentType: 'text/event-stream' });
}

/** The bytes of a streamed answer as a client receives them through the proxy. */
async function rawStream(url: string, path: string, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', ...SESSION.headers }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return response.text();
}

/** A script that writes `stream` and never ends it; `closed()` says whether the proxy closed the request. */
function neverEnding(stream: string): { script: Script; closed: () => boolean } {
  let closed = false;
  const script: Script = (_body, _request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(stream);
    response.on('close', () => (closed = true));
    return 'handled';
  };
  return { script, closed: () => closed };
}

/** A script that writes the first part of an answer, then waits for `release()` to write the rest. */
function pausedAfter(parts: () => [string, string]): { script: Script; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const script: Script = (_body, _request, response) => {
    const [first, rest] = parts();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(first);
    void released.then(() => response.end(rest));
    return 'handled';
  };
  return { script, release };
}
