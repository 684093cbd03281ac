/**
 * Every place an OpenAI-compatible answer can carry a tool call is read, and a refused call is withheld wherever it
 * was: the legacy `function_call`, every choice, chunks after the finish, whatever the content type or the request's
 * stream flag says; an answer that cannot be read is withheld whole; a deep one is not a 500; a name spelled another
 * way is no way round. Real HTTP on loopback, the official `openai` client where it can express the case, else fetch.
 * The refused call throughout is the support workflow's refund before the identity check.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { answerWith, chunkData, completionJson, completionWith, hastyAgent, sse, streamEvents } from './fake-upstream.js';
import { OPENING, TOOLS, json, nextGuidance, startProxy, type Running } from './helpers.js';
import { callNamesIn, REFUND, REFUND_VARIANTS } from './answer-shapes.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A chat completion posted as raw JSON; `extra` goes into the request body. */
const post = (extra: Record<string, unknown> = {}) =>
  fetch(`${running!.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', messages: OPENING, tools: TOOLS, ...extra }) });

const refundCall = (name = REFUND) => ({ id: 'call_refund_0', type: 'function', function: { name, arguments: '{"order":"A-1042","amount":42}' } });
/** What the client reads in place of a refused call (the reason waits for the model's next call). */
const REFUSED = /I can't do that\./;
/** The guidance the last answered session's next call will carry. */
const noted = () => nextGuidance(running!.monitor, running!.sessionIds.at(-1)!);

describe('the legacy function_call', () => {
  it('is checked and withheld in a non-streamed message', async () => {
    running = await startProxy(answerWith(JSON.stringify(completionWith([{ message: { role: 'assistant', content: null, function_call: { name: REFUND, arguments: '{"order":"A-1042"}' } }, finish_reason: 'function_call' }]))));
    const completion = await running.client.chat.completions.create({ model: 'x', messages: OPENING, tools: TOOLS });
    expect(completion.choices[0]!.message.function_call ?? undefined).toBeUndefined();
    expect(completion.choices[0]!.message.content).toMatch(REFUSED);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });

  it('is checked and withheld in streamed deltas, its name and arguments in pieces', async () => {
    const events = [
      chunkData([{ delta: { role: 'assistant', content: null } }]),
      chunkData([{ delta: { function_call: { name: 'issue_', arguments: '' } } }]),
      chunkData([{ delta: { function_call: { name: 'refund', arguments: '{"order":' } } }]),
      chunkData([{ delta: { function_call: { arguments: '"A-1042"}' } } }]),
      chunkData([{ delta: {}, finish_reason: 'function_call' }]),
      '[DONE]',
    ];
    running = await startProxy(answerWith(sse(events), { contentType: 'text/event-stream' }));
    const completion = await running.client.chat.completions.stream({ model: 'x', messages: OPENING, tools: TOOLS }).finalChatCompletion();
    expect(completion.choices[0]!.message.function_call ?? undefined).toBeUndefined();
    expect(completion.choices[0]!.message.content).toMatch(REFUSED);
  });
});

describe('chunks after the finish chunk', () => {
  it('are read: a tool-call delta sent after finish_reason is checked and withheld', async () => {
    const events = [
      chunkData([{ delta: { role: 'assistant', content: 'Sure.' } }]),
      chunkData([{ delta: {}, finish_reason: 'stop' }]),
      chunkData([{ delta: { tool_calls: [{ index: 0, ...refundCall() }] } }]),
      '[DONE]',
    ];
    running = await startProxy(answerWith(sse(events), { contentType: 'text/event-stream' }));
    const completion = await running.client.chat.completions.stream({ model: 'x', messages: OPENING, tools: TOOLS }).finalChatCompletion();
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.message.content).toMatch(REFUSED);
  });
});

describe('choices beyond the first', () => {
  it('have their calls withheld in a non-streamed answer', async () => {
    const body = completionWith([{ message: { role: 'assistant', content: 'One moment.' } }, { message: { role: 'assistant', content: null, tool_calls: [refundCall()] }, finish_reason: 'tool_calls' }]);
    running = await startProxy(answerWith(JSON.stringify(body)));
    const completion = await running.client.chat.completions.create({ model: 'x', messages: OPENING, tools: TOOLS });
    expect(completion.choices[0]!.message.content).toBe('One moment.');
    expect(completion.choices[1]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[1]!.message.content).toMatch(REFUSED);
    expect(await noted()).toContain('it came in choice 1 of the answer, and the proxy checks only the first choice');
    expect(completion.choices[1]!.finish_reason).toBe('stop');
  });

  it('have their calls withheld in a streamed answer', async () => {
    const events = [
      chunkData([{ index: 0, delta: { role: 'assistant', content: 'One moment.' } }]),
      chunkData([{ index: 1, delta: { role: 'assistant', tool_calls: [{ index: 0, ...refundCall() }] } }]),
      chunkData([
        { index: 0, delta: {}, finish_reason: 'stop' },
        { index: 1, delta: {}, finish_reason: 'tool_calls' },
      ]),
      '[DONE]',
    ];
    running = await startProxy(answerWith(sse(events), { contentType: 'text/event-stream' }));
    const completion = await running.client.chat.completions.stream({ model: 'x', messages: OPENING, tools: TOOLS }).finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe('One moment.');
    expect(completion.choices[1]?.message.tool_calls ?? []).toEqual([]);
  });
});

describe('the stream flag and the content type', () => {
  it('refuses a stream flag that is not a boolean (a string "true" some upstreams coerce) with 400 invalid_stream', async () => {
    running = await startProxy(hastyAgent);
    for (const stream of ['true', 1, 'false']) {
      const response = await post({ stream });
      expect(response.status).toBe(400);
      expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', param: 'stream', code: 'invalid_stream' });
    }
    expect(running.upstream.requests).toHaveLength(0);
  });

  it('reads an SSE answer labelled text/plain to a non-streamed request as the stream it is', async () => {
    running = await startProxy(answerWith(sse(streamEvents({ content: 'Sure.', toolCalls: [{ id: 'call_refund_0', name: REFUND, args: { order: 'A-1042' } }] })), { contentType: 'text/plain' }));
    const response = await post();
    const body = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(callNamesIn(body)).toEqual([]);
    expect(body).toMatch(REFUSED);
    expect(body).toContain('"content":"Sure."');
  });

  it('reads an SSE answer labelled application/json to a streamed request as the stream it is', async () => {
    running = await startProxy(answerWith(sse(streamEvents({ content: '', toolCalls: [{ id: 'call_refund_0', name: REFUND, args: {} }] })), { contentType: 'application/json' }));
    const completion = await running.client.chat.completions.stream({ model: 'x', messages: OPENING, tools: TOOLS }).finalChatCompletion();
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.message.content).toMatch(REFUSED);
  });

  it('reads a JSON answer labelled text/event-stream to a streamed request, and streams it checked', async () => {
    running = await startProxy(answerWith(JSON.stringify(completionJson({ content: '', toolCalls: [{ id: 'call_refund_0', name: REFUND, args: {} }] })), { contentType: 'text/event-stream' }));
    const completion = await running.client.chat.completions.stream({ model: 'x', messages: OPENING, tools: TOOLS }).finalChatCompletion();
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.message.content).toMatch(REFUSED);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });
});

describe('what the client gets is what was read', () => {
  it.each([false, true])('a key given twice (read one way here, perhaps another by the client) reaches the client once (stream: %s)', async (stream) => {
    // JSON.parse keeps the last of two keys; a parser that keeps the first would see the refund unchecked.
    const twice = (inner: string) => inner.replace('"delta":{}', `"delta":{"tool_calls":[${JSON.stringify({ index: 0, ...refundCall() })}]},"delta":{}`).replace('"message":{}', `"message":{"tool_calls":[${JSON.stringify(refundCall())}]},"message":{"role":"assistant","content":"Hello."}`);
    const body = stream
      ? sse([twice(chunkData([{ delta: {} }])), chunkData([{ delta: { content: 'Hello.' }, finish_reason: 'stop' }]), '[DONE]'])
      : twice(JSON.stringify(completionWith([{ message: {} }])));
    running = await startProxy(answerWith(body, { contentType: stream ? 'text/event-stream' : 'application/json' }));
    const text = await (await post({ stream })).text();
    expect(text).toContain('Hello.');
    expect(text).not.toContain('tool_calls');
  });
});

describe('answers that cannot be read', () => {
  it('withholds a body that is neither JSON nor SSE with 502 unreadable_upstream_response', async () => {
    running = await startProxy(answerWith(`{"choices": [{"message": {"tool_calls": [${JSON.stringify(refundCall())}]`));
    const failure = await running.client.chat.completions.create({ model: 'x', messages: OPENING, tools: TOOLS }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('unreadable_upstream_response');
  });

  it('withholds a compressed answer the proxy did not ask for (it cannot read it), never passing its encoding on', async () => {
    const { gzipSync } = await import('node:zlib');
    const zipped = gzipSync(JSON.stringify(completionJson({ content: '', toolCalls: [{ id: 'call_refund_0', name: REFUND, args: {} }] })));
    running = await startProxy((_body, _request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(zipped);
      return 'handled';
    });
    const response = await post();
    expect(response.status).toBe(502);
    expect(callNamesIn(await response.text())).toEqual([]);
  });

  it('answers a completion nested 20,000 deep with a clear error, not a 500', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const body = JSON.stringify(completionWith([{ message: { role: 'assistant', content: null, tool_calls: [refundCall()] }, finish_reason: 'tool_calls' }])).replace(/}$/, `,"extra":${deep}}`);
    running = await startProxy(answerWith(body));
    const response = await post();
    expect(response.status).toBe(502);
    expect((await json(response)).error).toMatchObject({ type: 'upstream_error', code: 'unreadable_upstream_response' });
  });

  it('delivers the refusal when a refused call’s arguments nest 20,000 deep', async () => {
    const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
    const body = completionWith([{ message: { role: 'assistant', content: null, tool_calls: [{ ...refundCall(), function: { name: REFUND, arguments: deep } }] }, finish_reason: 'tool_calls' }]);
    running = await startProxy(answerWith(JSON.stringify(body)));
    for (const stream of [false, true]) {
      const response = await post({ stream });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(callNamesIn(text)).toEqual([]);
      expect(text).toMatch(REFUSED);
    }
  });
});

describe('tool names spelled another way', () => {
  /** A proxy whose upstream calls `name` (streamed when asked), then whatever `next` says. */
  const calling = (name: string) =>
    startProxy((body, _request, response) => {
      const turn = { content: '', toolCalls: [{ id: `call_${body.messages.length}`, name, args: { order: 'A-1042' } }] };
      response.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
      response.end(body.stream ? sse(streamEvents(turn)) : JSON.stringify(completionJson(turn)));
      return 'handled';
    });

  it.each([false, true])('refuse a refund spelled another way whether or not the request lists tools (stream: %s)', async (stream) => {
    for (const name of REFUND_VARIANTS) {
      for (const tools of [TOOLS, undefined]) {
        running = await calling(name);
        const response = await post({ stream, tools });
        const text = await response.text();
        expect(callNamesIn(text)).toEqual([]);
        expect(text).toMatch(REFUSED);
        // The workflow's own reason, for the model's next call: the variant is its issue_refund, due after verify_identity.
        expect(await nextGuidance(running.monitor, response.headers.get('x-panoptes-session-id')!)).toMatch(/verify_identity/);
        await running.close();
        running = undefined;
      }
    }
  });

  it.each([false, true])('refuse a call the request did not offer by its exact name, and never enter its state (stream: %s)', async (stream) => {
    // First a look-alike of the identity check, then the refund: were the look-alike's state entered, the refund would pass.
    running = await startProxy((body, _request, response) => {
      const name = body.messages.length === OPENING.length ? 'Verify_Identity' : REFUND;
      const turn = { content: '', toolCalls: [{ id: `call_${body.messages.length}`, name, args: {} }] };
      response.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
      response.end(body.stream ? sse(streamEvents(turn)) : JSON.stringify(completionJson(turn)));
      return 'handled';
    });
    const first = await post({ stream, user: `offered-${stream}` });
    const text = await first.text();
    expect(callNamesIn(text)).toEqual([]);
    expect(text).toMatch(REFUSED);
    expect(await nextGuidance(running.monitor, first.headers.get('x-panoptes-session-id')!)).toContain('The call to Verify_Identity was refused: it is not one of the tools this request offered (verify_identity, issue_refund; names are matched exactly)');
    const second = await post({ stream, user: `offered-${stream}`, messages: [...OPENING, { role: 'assistant', content: 'Checking.' }, { role: 'user', content: 'Go on.' }] });
    expect(callNamesIn(await second.text())).toEqual([]);
    const report = await running.monitor.report(first.headers.get('x-panoptes-session-id')!);
    expect(report?.trace).not.toContain('verify_identity');
    expect(report?.refusals.map((refusal) => refusal.state)).toEqual(['verify_identity', 'account_action']);
  });
});
