/**
 * Bad input and faults (issue 18): each answered in OpenAI's error format with the documented status and code, or
 * counted, never a crash or a hang. Real HTTP on loopback throughout.
 */
import { createServer } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createMonitor, loadWorkflow } from '../../src/index.js';
import { createProxy } from '../../src/proxy/index.js';
import { hastyAgent, streamEvents } from './fake-upstream.js';
import { OPENING, SUPPORT_WORKFLOW, quietLogger, json, startProxy, type Running } from './helpers.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('bad requests', () => {
  it('answers a malformed JSON body with 400 invalid_json', async () => {
    running = await startProxy(hastyAgent);
    const response = await post(running.url, '{"model": "x", "messages": [');
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.type).toBe('invalid_request_error');
    expect(error.code).toBe('invalid_json');
    expect(error.message).toMatch(/^The request body is not valid JSON: /);
    expect(running.upstream.requests).toHaveLength(0);
  });

  it('answers a body that is not a chat completion with 400 invalid_chat_request, naming what is missing', async () => {
    running = await startProxy(hastyAgent);
    const cases: Array<[string, string]> = [
      ['{"model": "x", "prompt": "hi"}', "Not a chat completion request: 'messages' is required: an array of chat messages."],
      ['[1, 2]', 'Not a chat completion request: the body must be a JSON object (a chat completion request).'],
      ['{"model": "x", "messages": []}', "Not a chat completion request: 'messages' is empty: a chat completion needs at least one message."],
      ['{"model": "x", "messages": [{"content": "no role"}]}', "Not a chat completion request: 'messages[0]' must be an object with a string 'role'."],
    ];
    for (const [body, message] of cases) {
      const response = await post(running.url, body);
      expect(response.status).toBe(400);
      expect((await json(response)).error).toEqual({ message, type: 'invalid_request_error', param: 'messages', code: 'invalid_chat_request' });
    }
    expect(running.upstream.requests).toHaveLength(0);
  });

  it('passes an unknown model to the upstream and its error back unchanged', async () => {
    running = await startProxy((body, _request, response) => {
      if (body.model !== 'no-such-model') return hastyAgent(body);
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'The model `no-such-model` does not exist', type: 'invalid_request_error', param: null, code: 'model_not_found' } }));
      return 'handled';
    });
    const failure = await running.client.chat.completions.create({ model: 'no-such-model', messages: OPENING }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
    expect((failure as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    expect(running.upstream.requests[0]!.body!.model).toBe('no-such-model');
  });

  it('refuses a body over the limit with 413 before reading it all', async () => {
    running = await startProxy(hastyAgent, { proxy: { bodyLimitBytes: 1024 } });
    const response = await post(running.url, JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'x'.repeat(4096) }] }));
    expect(response.status).toBe(413);
    expect((await json(response)).error).toEqual({ message: "The request body is larger than 1024 bytes, the proxy's limit.", type: 'invalid_request_error', param: null, code: 'request_too_large' });
    const passThrough = await fetch(`${running.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'y'.repeat(4096) });
    expect(passThrough.status).toBe(413);
    expect(running.upstream.requests).toHaveLength(0);
  });

  it('refuses n > 1 (one choice is monitored per call) with 400 unsupported_n', async () => {
    running = await startProxy(hastyAgent);
    const response = await post(running.url, JSON.stringify({ model: 'x', n: 2, messages: OPENING }));
    expect(response.status).toBe(400);
    expect((await json(response)).error.code).toBe('unsupported_n');
  });
});

describe('the upstream failing', () => {
  it('gives 502 upstream_unavailable when nothing listens at the upstream', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const logger = quietLogger();
    const monitor = createMonitor({ workflow: await loadWorkflow(SUPPORT_WORKFLOW), logger });
    const proxy = createProxy({ upstream: `http://127.0.0.1:${port}/v1`, monitor, port: 0, logger });
    const { url } = await proxy.listen();
    try {
      const response = await post(url, JSON.stringify({ model: 'x', messages: OPENING }));
      expect(response.status).toBe(502);
      expect((await json(response)).error).toEqual({ message: 'The upstream model server could not be reached (ECONNREFUSED).', type: 'upstream_error', param: null, code: 'upstream_unavailable' });
      expect(proxy.metrics.value('panoptes_proxy_upstream_errors_total', { code: 'upstream_unavailable' })).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('gives 504 upstream_timeout when the upstream does not answer within the budget', async () => {
    running = await startProxy(() => new Promise(() => {}), { proxy: { upstreamTimeoutMs: 100 } });
    const response = await post(running.url, JSON.stringify({ model: 'x', messages: OPENING }));
    expect(response.status).toBe(504);
    expect((await json(response)).error).toEqual({ message: 'The upstream model server did not answer within 100 ms.', type: 'upstream_error', param: null, code: 'upstream_timeout' });
  });

  it('drops malformed SSE chunks (counted), and still checks the tool calls of the rest of the stream', async () => {
    running = await startProxy((_body, _request, response) => {
      const events = streamEvents({ content: '', toolCalls: [{ id: 'call_refund_0', name: 'issue_refund', args: { order: 'A-1042' } }] });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {not json\n\n');
      for (const data of events) response.write(`data: ${data}\n\n`);
      response.end();
      return 'handled';
    });
    const completion = await running.client.chat.completions.stream({ model: 'x', messages: OPENING }).finalChatCompletion();
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.message.content).toBe("I can't do that.");
    expect(running.proxy.metrics.value('panoptes_proxy_malformed_chunks_total')).toBe(1);
  });

  it('ends a stream the upstream cut off before its finish with an error event, withholding its tool calls', async () => {
    running = await startProxy((_body, _request, response) => {
      const events = streamEvents({ content: 'Let me verify you.', toolCalls: [{ id: 'call_verify_0', name: 'verify_identity', args: { account: 'ACC-77' } }] });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const data of events.slice(0, 6)) response.write(`data: ${data}\n\n`); // text and half a tool call
      response.end();
      return 'handled';
    });
    const seen: string[] = [];
    const stream = await running.client.chat.completions.create({ model: 'x', messages: OPENING, stream: true });
    const failure = await (async () => {
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        if (delta?.content) seen.push(delta.content);
        expect(delta?.tool_calls).toBeUndefined();
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain('The upstream stream ended before the response was complete; any tool calls in it were withheld.');
    expect(seen.join('')).toBe('Let me verify you.');
    expect(running.proxy.metrics.value('panoptes_proxy_streams_cut_off_total')).toBe(1);
  });

  it('aborts the upstream request when the client disconnects mid-stream', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    running = await startProxy((_body, _request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${streamEvents({ content: 'Hello there' })[1]}\n\n`);
      response.once('close', () => upstreamClosed()); // the proxy let go of the upstream
      return 'handled'; // and never finishes
    });
    const controller = new AbortController();
    const stream = await running.client.chat.completions.create({ model: 'x', messages: OPENING, stream: true }, { signal: controller.signal });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) break; // first text arrived: leave (the SDK aborts the request)
    }
    controller.abort();
    await closed;
    await expect.poll(() => running!.proxy.metrics.value('panoptes_proxy_client_aborts_total')).toBe(1);
  });
});

describe('streams pass text at once', () => {
  it('sends a text delta to the client before the upstream has finished (time to first token unchanged)', async () => {
    let finish!: () => void;
    const release = new Promise<void>((resolve) => (finish = resolve));
    running = await startProxy((_body, _request, response) => {
      const events = streamEvents({ content: 'Hello! How can I help you today?' });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(`data: ${events[0]}\n\ndata: ${events[1]}\n\n`);
      void release.then(() => {
        for (const data of events.slice(2)) response.write(`data: ${data}\n\n`);
        response.end();
      });
      return 'handled';
    });
    const stream = await running.client.chat.completions.create({ model: 'x', messages: OPENING, stream: true });
    const text: string[] = [];
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta?.content;
      if (content) text.push(content);
      if (text.length === 1) finish(); // the upstream holds the rest until the first piece reached the client
    }
    expect(text.join('')).toBe('Hello! How can I help you today?');
  });

  it('sends the response headers at once when the upstream holds its first event (a model still thinking)', async () => {
    let finish!: () => void;
    const release = new Promise<void>((resolve) => (finish = resolve));
    running = await startProxy((_body, _request, response) => {
      const events = streamEvents({ content: 'Done.' });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      void release.then(() => {
        for (const data of events) response.write(`data: ${data}\n\n`);
        response.end();
      });
      return 'handled';
    });
    // The headers arrive while the upstream has sent nothing of its body: then it is let go.
    const response = await post(running.url, JSON.stringify({ model: 'x', messages: OPENING, stream: true }));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-panoptes-session-id')).toBeTruthy();
    finish();
    expect(await response.text()).toContain('"content":"Done."');
  });
});
