/**
 * Every place a Responses API answer can carry a call is read, and a refused call withheld wherever it was: in the
 * streamed item events and in the completed response alike, whatever the content type or the request's stream flag
 * says; places that disagree, item types the proxy cannot check and answers it cannot read are withheld. The official
 * `openai` client where it can express the case, else fetch. The refused call is the support workflow's refund
 * before the identity check.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { answerWith, hastyAgent, sse } from './fake-upstream.js';
import { responseEvent, responseEventsOf, responseJson } from './fake-formats.js';
import { startProxy, type Running } from './helpers.js';
import { functionCalls, OPENING_INPUT, respond } from './responses-helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const REFUND = { id: 'call_refund_0', name: 'issue_refund', args: { order: 'A-1042', amount: 42 } };
const SHOWN = "I can't do that.";
type Event = Record<string, unknown>;

/** The guidance the session's next call will carry (in its instructions): where a refused call's reason goes. */
async function noted(): Promise<string> {
  const next = await running!.monitor.peek(running!.sessionIds.at(-1)!);
  return next.action === 'proceed' ? next.interventions.map((intervention) => intervention.text).join('\n') : '';
}

/** A Responses request posted as raw JSON. */
const post = (extra: Record<string, unknown> = {}) => fetch(`${running!.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x', input: OPENING_INPUT, ...extra }) });
/** An answer of these events, as OpenAI streams them. */
const streamOf = (events: readonly Event[]) => answerWith(events.map(responseEvent).join(''), { contentType: 'text/event-stream' });

describe('non-streamed answers', () => {
  it('withhold what cannot be read: not JSON, not an object, an output that is not a list', async () => {
    for (const body of ['{"output": [', '[1]', '{"id":"resp_1","output":{"type":"function_call"}}']) {
      running = await startProxy(answerWith(body));
      const response = await post();
      expect(response.status).toBe(502);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unreadable_upstream_response');
      await running.close();
      running = undefined;
    }
  });

  it('replace an output item of a type the proxy cannot check by a message, in place', async () => {
    const answer = responseJson({ content: 'Working on it.' });
    running = await startProxy(answerWith(JSON.stringify({ ...answer, output: [...(answer.output as Event[]), { id: 'x_1', type: 'future_call', call_id: 'c1', name: 'issue_refund' }] })));
    const { response } = await respond(running.client, { input: OPENING_INPUT }, { stream: false });
    expect(response.output.map((item) => item.type)).toEqual(['message', 'message']);
    expect(response.output_text).toBe(`Working on it.${SHOWN}`);
    expect(await noted()).toContain("it is an output item of type 'future_call', which the proxy cannot check");
  });

  it('refuse a call to a tool the request did not offer, and a custom tool call the workflow refuses', async () => {
    const answer = responseJson({ content: '' });
    const output = [
      { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'delete_account', arguments: '{}', status: 'completed' },
      { id: 'ct_1', type: 'custom_tool_call', call_id: 'call_2', name: 'issue_refund', input: 'order A-1042' },
    ];
    running = await startProxy(answerWith(JSON.stringify({ ...answer, output })));
    const { response } = await respond(running.client, { input: OPENING_INPUT, tools: [{ type: 'function', name: 'verify_identity', parameters: {}, strict: false }, { type: 'custom', name: 'issue_refund' }] }, { stream: false });
    expect(response.output.map((item) => item.type)).toEqual(['message', 'message']);
    expect(response.output_text).toBe(SHOWN + SHOWN);
    expect(await noted()).toContain('The call to delete_account was refused: it is not one of the tools this request offered (verify_identity, issue_refund');
    expect(await noted()).toMatch(/The call to issue_refund was refused and did not run/);
  });

  it('as a stream, for a client that asked for one: the checked response as its events', async () => {
    running = await startProxy(answerWith(JSON.stringify(responseJson({ content: 'Sure.', toolCalls: [REFUND] }))));
    const { response, events } = await respond(running.client, { input: OPENING_INPUT }, { stream: true });
    expect(functionCalls(response)).toEqual([]);
    expect(response.output_text).toBe(`Sure.${SHOWN}`);
    expect(events.map((event) => event.type).slice(0, 2)).toEqual(['response.created', 'response.output_item.added']);
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, at) => at));
  });
});

describe('streamed answers', () => {
  const answer = () => responseJson({ content: 'Let me do that.', toolCalls: [REFUND] }, 'resp_stream');

  it('hold from the first call on: the text before it goes at once, the call is replaced by a message in place', async () => {
    running = await startProxy(streamOf(responseEventsOf(answer())));
    const { response, events } = await respond(running.client, { input: OPENING_INPUT }, { stream: true });
    expect(response.output.map((item) => item.type)).toEqual(['message', 'message']);
    expect((response.output[1] as { content: Array<{ text: string }> }).content[0]!.text).toBe(SHOWN);
    expect(JSON.stringify(events)).not.toContain('"name":"issue_refund"');
  });

  it('read a call that only the completed response carries', async () => {
    const events = responseEventsOf(answer()).filter((event) => !(event.output_index === 1));
    running = await startProxy(streamOf(events));
    const { response } = await respond(running.client, { input: OPENING_INPUT }, { stream: true });
    expect(functionCalls(response)).toEqual([]);
    expect(response.output_text).toBe(`Let me do that.${SHOWN}`);
    expect(await noted()).toMatch(/The call to issue_refund was refused and did not run/);
  });

  it('refuse a call whose streamed arguments and completed response differ', async () => {
    // The stream says verify_identity (allowed); the completed response, which the SDK keeps, says something else.
    const verify = responseJson({ content: '', toolCalls: [{ id: 'call_v', name: 'verify_identity', args: { account: 'ACC-77' } }] }, 'resp_d');
    const events = responseEventsOf(verify);
    const completed = events.at(-1)!;
    const output = ((completed.response as Event).output as Event[]).map((item) => ({ ...item, arguments: '{"account":"ACC-99"}' }));
    events[events.length - 1] = { ...completed, response: { ...(completed.response as Event), output } };
    running = await startProxy(streamOf(events));
    const { response, events: received } = await respond(running.client, { input: OPENING_INPUT }, { stream: true });
    expect(functionCalls(response)).toEqual([]);
    expect(response.output_text).toBe(SHOWN);
    expect(await noted()).toContain('the events that carried it differ in its arguments');
    expect(JSON.stringify(received)).not.toContain('ACC-99');
  });

  it('empty the output of a lifecycle event that carries a call, and check the call at the end', async () => {
    const events = responseEventsOf(answer());
    events[0] = { ...events[0], response: { ...(events[0]!.response as Event), output: (answer().output as Event[]).slice(1) } };
    running = await startProxy(streamOf(events));
    const { response, events: received } = await respond(running.client, { input: OPENING_INPUT }, { stream: true });
    expect((received[0] as { response: { output: unknown[] } }).response.output).toEqual([]);
    expect(functionCalls(response)).toEqual([]);
  });

  it('withhold the calls of a stream cut off before it completed, with an error event', async () => {
    const events = responseEventsOf(answer()).slice(0, -2);
    running = await startProxy(streamOf(events));
    const failure = await respond(running.client, { input: OPENING_INPUT }, { stream: true }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain('The upstream stream ended before the response was complete');
  });

  it('as JSON-less SSE to a non-streamed request: checked as a stream', async () => {
    running = await startProxy(answerWith(sse(responseEventsOf(answer()).map((event) => JSON.stringify(event))), { contentType: 'application/json' }));
    const response = await post();
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).not.toContain('"name":"issue_refund"');
  });
});

describe('Responses requests', () => {
  it('refuse background responses (fetched later, unchecked) and input that is no list of items', async () => {
    running = await startProxy(hastyAgent);
    for (const [body, code] of [
      [{ background: true }, 'unsupported_background'],
      [{ input: [1, 2] }, 'invalid_responses_request'],
      [{ instructions: ['x'] }, 'invalid_responses_request'],
    ] as const) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    expect(running.upstream.requests).toHaveLength(0);
  });

  it('answer the calls withheld from the response they continue, even when they name their session', async () => {
    running = await startProxy(hastyAgent);
    const headers = { 'x-panoptes-session-id': 'named' };
    const first = await respond(running.client, { input: OPENING_INPUT }, { stream: false, headers });
    expect(functionCalls(first.response)).toEqual([]);
    // The upstream stored the refund; without its output it would refuse the continuation (400).
    await respond(running.client, { input: 'Go ahead.', previous_response_id: first.response.id }, { stream: false, headers });
    expect((running.upstream.requests[1]!.body as unknown as { input: unknown[] }).input).toEqual([
      { type: 'function_call_output', call_id: 'call_refund_0', output: expect.stringMatching(/^\[Panoptes\] The call to issue_refund was refused/) },
      { role: 'user', content: 'Go ahead.' },
    ]);
  });

  it('with require_session_id, take a recorded previous_response_id as naming the session', async () => {
    running = await startProxy(hastyAgent, { proxy: { requireSessionId: true } });
    const refused = await respond(running.client, { input: OPENING_INPUT }, { stream: false }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, code: 'missing_session_id' });
    const first = await respond(running.client, { input: OPENING_INPUT, metadata: { session_id: 'req-1' } }, { stream: false });
    await respond(running.client, { input: 'Go ahead.', previous_response_id: first.response.id }, { stream: false });
    expect(running.sessionIds).toEqual(['req-1', 'req-1']);
    const unknown = await respond(running.client, { input: 'Go ahead.', previous_response_id: 'resp_elsewhere' }, { stream: false }).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ status: 400, code: 'missing_session_id' });
  });

  it('name their session by header, metadata, or conversation; a session named by one continues by another', async () => {
    running = await startProxy(hastyAgent);
    const byMetadata = await respond(running.client, { input: OPENING_INPUT, metadata: { session_id: 'r-1' } }, { stream: false });
    expect(running.sessionIds.at(-1)).toBe('r-1');
    expect(functionCalls(byMetadata.response)).toEqual([]);
    await respond(running.client, { input: 'Hello', conversation: 'conv_7' }, { stream: false });
    expect(running.sessionIds.at(-1)).toBe('conv_7');
    // A response of session r-1, continued by id without naming the session: back in r-1.
    await respond(running.client, { input: 'Go ahead.', previous_response_id: byMetadata.response.id }, { stream: false });
    expect(running.sessionIds.at(-1)).toBe('r-1');
  });
});
