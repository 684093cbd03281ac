/**
 * Anthropic Messages through the proxy (`anthropic_upstream` set), over raw HTTP to the documented wire format, for
 * what a client cannot send or observe (event names, blocks sent twice); anthropic-sdk.test.ts runs the official
 * client. anthropic-helpers.ts reads a stream as the SDK does: the support demo's
 * early refund is refused like on chat completions, streamed and not; the guidance goes into `system`; Anthropic's
 * auth headers reach the upstream; the proxy's errors come in Anthropic's shape.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { answerWith, hastyAgent, startFakeUpstream } from './fake-upstream.js';
import { nextGuidance, startProxy, type Running } from './helpers.js';
import { AnthropicError, createMessage, runAnthropicDemo, SYSTEM, textOf, toolUses, ANTHROPIC_TOOLS } from './anthropic-helpers.js';
import { anthropicEvent, anthropicJson } from './fake-formats.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A proxy whose Anthropic upstream is the fake (which speaks Anthropic on /v1/messages). */
async function startAnthropicProxy(script = hastyAgent, proxy: Record<string, unknown> = {}) {
  const upstream = await startFakeUpstream(script);
  const started = await startProxy(script, { proxy: { anthropicUpstream: upstream.url, ...proxy } });
  const close = started.close;
  return { ...started, anthropicUpstream: upstream, close: async () => (await close(), await upstream.close()) };
}

const OPENING = [{ role: 'user', content: 'Hi, I want a refund for order A-1042, it arrived broken.' }];

describe.each([false, true])('the support demo over Anthropic Messages (stream: %s)', (stream) => {
  it('refuses the early refund before the client sees it, corrects the next call, and lets the procedure through', async () => {
    const proxy = await startAnthropicProxy();
    running = proxy;
    const { answers } = await runAnthropicDemo(proxy.url, { stream });

    // 1. The model went straight for the refund: in its place the client got a neutral text block, naming no rule.
    const first = answers[0]!.message;
    expect(toolUses(first)).toEqual([]);
    expect(first.stop_reason).toBe('end_turn');
    expect(textOf(first)).toBe("I can't do that.");
    expect(JSON.stringify(answers[0]!.events)).not.toContain('"name":"issue_refund"');
    // Every event is named by its type, as Anthropic's clients dispatch on it.
    for (const { event, data } of answers[0]!.events) expect(event).toBe(data.type);

    // 2. The next call carried the workflow's guidance in its system prompt; the model verified first.
    const bodies = proxy.anthropicUpstream.requests.map((request) => request.body as unknown as Record<string, unknown>);
    expect(String(bodies[0]!.system)).toBe(SYSTEM);
    expect(String(bodies[1]!.system)).toContain('[WORKFLOW GUIDANCE]');
    // The model read why, once, in the system prompt of the call after the refusal, and not again after.
    expect(String(bodies[1]!.system).split('The call to issue_refund was refused')).toHaveLength(2);
    expect(String(bodies[2]!.system)).not.toContain('The call to issue_refund was refused');
    expect(toolUses(answers[1]!.message).map((use) => use.name)).toEqual(['verify_identity']);

    // 3. Then the refund is allowed, and the conversation resolves; one session, placed by the conversation.
    expect(toolUses(answers[2]!.message).map((use) => use.name)).toEqual(['issue_refund']);
    expect(answers[2]!.message.stop_reason).toBe('tool_use');
    expect(textOf(answers.at(-1)!.message)).toContain('Is there anything else');
    expect(new Set(answers.map((answer) => answer.sessionId)).size).toBe(1);
    const report = await proxy.monitor.report(answers[0]!.sessionId!);
    expect(report?.trace).toEqual(['greeting', 'verify_identity', 'account_action', 'resolution']);
    expect(report?.refusals.map((refusal) => refusal.state)).toEqual(['account_action']);

    // Anthropic's auth headers went upstream; the OpenAI upstream saw nothing.
    expect(proxy.anthropicUpstream.requests[0]!.headers).toMatchObject({ 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' });
    expect(proxy.upstream.requests).toEqual([]);
  });
});

describe('the Messages route', () => {
  it('without anthropic_upstream, answers 404 in Anthropic shape, naming the setting', async () => {
    running = await startProxy(hastyAgent);
    const error = await createMessage(running.url, { messages: OPENING }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AnthropicError);
    expect((error as AnthropicError).status).toBe(404);
    expect((error as AnthropicError).body).toEqual({ type: 'error', error: { type: 'invalid_request_error', code: 'anthropic_upstream_not_set', message: expect.stringContaining('anthropic_upstream') } });
    expect(running.upstream.requests).toEqual([]);
  });

  it('refuses a request without messages with a 400 in Anthropic shape', async () => {
    running = await startAnthropicProxy();
    const error = (await createMessage(running.url, { messages: [] }).catch((caught: unknown) => caught)) as AnthropicError;
    expect(error.status).toBe(400);
    expect(error.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_messages_request' } });
  });

  it('names a session by x-panoptes-session-id or metadata.user_id', async () => {
    running = await startAnthropicProxy();
    const byHeader = await createMessage(running.url, { messages: OPENING }, { headers: { 'x-panoptes-session-id': 'anthropic-1' } });
    expect(byHeader.response.headers.get('x-panoptes-session-id')).toBe('anthropic-1');
    const byMetadata = await createMessage(running.url, { messages: OPENING, metadata: { user_id: 'user-7' } });
    expect(byMetadata.response.headers.get('x-panoptes-session-id')).toBe('user-7');
  });

  it('refuses a call to a tool the request did not offer', async () => {
    running = await startAnthropicProxy(() => ({ content: '', toolCalls: [{ id: 'toolu_1', name: 'delete_account', args: {} }] }));
    const { message } = await createMessage(running.url, { messages: OPENING, tools: ANTHROPIC_TOOLS });
    expect(toolUses(message)).toEqual([]);
    expect(textOf(message)).toBe("I can't do that.");
    const next = await createMessage(running.url, { messages: [...OPENING, { role: 'assistant', content: message.content }, { role: 'user', content: 'Well?' }], tools: ANTHROPIC_TOOLS });
    expect(toolUses(next.message)).toEqual([]);
    const system = String((running as Awaited<ReturnType<typeof startAnthropicProxy>>).anthropicUpstream.requests[1]!.body!.system);
    expect(system.split('The call to delete_account was refused: it is not one of the tools this request offered (verify_identity, issue_refund')).toHaveLength(2);
  });
});

describe('reading a streamed Anthropic answer', () => {
  /** A proxy whose Anthropic upstream answers every request with these events. */
  const streaming = async (events: string) => {
    const upstream = await startFakeUpstream(answerWith(events, { contentType: 'text/event-stream' }));
    const proxy = await startProxy(hastyAgent, { proxy: { anthropicUpstream: upstream.url } });
    return { ...proxy, close: async () => (await proxy.close(), await upstream.close()) };
  };
  const refund = { type: 'tool_use', id: 'toolu_refund', name: 'issue_refund', input: {} };

  it('reads each event by its data, whatever name it came under: a tool_use sent as a "ping" is withheld too', async () => {
    const events =
      anthropicEvent({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } } }) +
      `event: ping\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: refund })}\n\n` +
      anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"order":"A-1042"}' } }) +
      anthropicEvent({ type: 'content_block_stop', index: 0 }) +
      anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } }) +
      anthropicEvent({ type: 'message_stop' });
    running = await streaming(events);
    const { message, events: received } = await createMessage(running.url, { messages: OPENING, tools: ANTHROPIC_TOOLS }, { stream: true });
    expect(toolUses(message)).toEqual([]);
    expect(message.stop_reason).toBe('end_turn');
    expect(textOf(message)).toBe("I can't do that.");
    expect(JSON.stringify(received)).not.toContain('issue_refund"');
  });

  it('checks blocks sent whole inside message_start, and sends them as blocks of their own', async () => {
    const events =
      anthropicEvent({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Sure.' }, { ...refund, input: { order: 'A-1042' } }], stop_reason: null } }) +
      anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } }) +
      anthropicEvent({ type: 'message_stop' });
    running = await streaming(events);
    const { message, events: received } = await createMessage(running.url, { messages: OPENING, tools: ANTHROPIC_TOOLS }, { stream: true });
    expect(received[0]!.data.message.content).toEqual([]);
    expect(message.content).toEqual([{ type: 'text', text: 'Sure.' }, { type: 'text', text: "I can't do that." }]);
    expect(message.stop_reason).toBe('end_turn');
  });

  it('withholds a tool_use whose input came both whole (in its start) and in pieces', async () => {
    const events =
      anthropicEvent({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], stop_reason: null } }) +
      anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'verify_identity', input: { account: 'ACC-77' } } }) +
      anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"account":"ACC-99"}' } }) +
      anthropicEvent({ type: 'content_block_stop', index: 0 }) +
      anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } }) +
      anthropicEvent({ type: 'message_stop' });
    running = await streaming(events);
    const { message } = await createMessage(running.url, { messages: OPENING, tools: ANTHROPIC_TOOLS }, { stream: true });
    expect(toolUses(message)).toEqual([]);
    expect(textOf(message)).toBe("I can't do that.");
  });

  it('withholds the calls of a stream cut off before message_stop, with an error event', async () => {
    const events =
      anthropicEvent({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], stop_reason: null } }) +
      anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
      anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me verify.' } }) +
      anthropicEvent({ type: 'content_block_stop', index: 0 }) +
      anthropicEvent({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'verify_identity', input: {} } });
    running = await streaming(events);
    const error = (await createMessage(running.url, { messages: OPENING }, { stream: true }).catch((caught: unknown) => caught)) as AnthropicError;
    expect(error).toBeInstanceOf(AnthropicError);
    expect(error.body).toMatchObject({ type: 'error', error: { code: 'stream_cut_off' } });
  });

  it('sends a JSON answer to a streamed request as the events of one, checked', async () => {
    const upstream = await startFakeUpstream(answerWith(JSON.stringify(anthropicJson({ content: 'Sure.', toolCalls: [{ id: 'toolu_r', name: 'issue_refund', args: { order: 'A-1042' } }] }))));
    const proxy = await startProxy(hastyAgent, { proxy: { anthropicUpstream: upstream.url } });
    running = { ...proxy, close: async () => (await proxy.close(), await upstream.close()) };
    const { message, events } = await createMessage(running.url, { messages: OPENING, tools: ANTHROPIC_TOOLS }, { stream: true });
    expect(events.map(({ event }) => event)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(message.content).toEqual([{ type: 'text', text: 'Sure.' }, { type: 'text', text: "I can't do that." }]);
    expect(message.stop_reason).toBe('end_turn');
  });

  it('withholds a block of a type it cannot check', async () => {
    const body = JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Done.' }, { type: 'future_call', id: 'x_1', name: 'issue_refund', input: {} }], stop_reason: 'end_turn' });
    const upstream = await startFakeUpstream(answerWith(body));
    const proxy = await startProxy(hastyAgent, { proxy: { anthropicUpstream: upstream.url } });
    running = { ...proxy, close: async () => (await proxy.close(), await upstream.close()) };
    const { message, response } = await createMessage(running.url, { messages: OPENING });
    expect(message.content).toEqual([{ type: 'text', text: 'Done.' }, { type: 'text', text: "I can't do that." }]);
    expect(await nextGuidance(running.monitor, response.headers.get('x-panoptes-session-id')!)).toContain("it is a content block of type 'future_call', which the proxy cannot check");
  });
});
