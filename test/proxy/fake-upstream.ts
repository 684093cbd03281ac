/**
 * A fake OpenAI-compatible upstream, served on loopback by the test (real HTTP, real SSE): it answers each chat
 * completion with the turn a scripted model gives for the request it received, as JSON or as a stream. It speaks the
 * Responses API (keeping its responses for `previous_response_id`, as OpenAI does), Anthropic Messages and legacy
 * completions too (fake-formats.ts): the script sees every request as chat messages.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicEvent, anthropicEventsOf, anthropicJson, anthropicView, completionsView, responseEvent, responseEventsOf, responseJson, responsesView, textCompletionEvents, textCompletionJson, type Wire } from './fake-formats.js';

export interface ScriptedCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}
export interface ScriptedTurn {
  content: string;
  toolCalls?: ScriptedCall[];
}
export type RequestBody = { messages: Array<{ role: string; content?: unknown; name?: string; tool_call_id?: string; tool_calls?: unknown[] }>; stream?: boolean; [key: string]: unknown };

/** What the fake does with one request: answer with a turn, or take over the raw response (faults). */
export type Script = (body: RequestBody, request: IncomingMessage, response: ServerResponse) => ScriptedTurn | 'handled' | Promise<ScriptedTurn | 'handled'>;

export interface FakeUpstream {
  /** Base URL with `/v1`. */
  url: string;
  /** Every request received: path, headers and parsed body. */
  requests: Array<{ path: string; headers: IncomingMessage['headers']; body: RequestBody | undefined; raw: string }>;
  close(): Promise<void>;
}

/** The format a path is answered in by default: by its route; `undefined` for any other path (a JSON echo). */
export function wireOfPath(path: string): Wire | undefined {
  if (path.startsWith('/v1/chat/completions')) return 'chat';
  if (path.startsWith('/v1/responses')) return 'responses';
  if (path.startsWith('/v1/messages')) return 'anthropic';
  if (path.startsWith('/v1/completions')) return 'completions';
  return undefined;
}

/**
 * Starts the fake. `isChat` says which paths it answers as chat completions, `wireOf` in which format it answers each
 * path (default: by the route it starts with); any other path gets a JSON echo of the request.
 */
export async function startFakeUpstream(script: Script, { isChat, wireOf = (path: string) => (isChat ? (isChat(path) ? 'chat' : undefined) : wireOfPath(path)) }: { isChat?: (path: string) => boolean; wireOf?: (path: string) => Wire | undefined } = {}): Promise<FakeUpstream> {
  const requests: FakeUpstream['requests'] = [];
  // The Responses API keeps each response (its input and output) for the requests that continue it.
  const stored = new Map<string, Array<Record<string, unknown>>>();
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of request) chunks.push(chunk as Buffer);
    } catch {
      return; // the proxy aborted the request mid-body
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: RequestBody | undefined;
    try {
      body = raw ? (JSON.parse(raw) as RequestBody) : undefined;
    } catch {
      body = undefined;
    }
    const path = request.url ?? '';
    requests.push({ path, headers: request.headers, body, raw });
    const wire = wireOf(path);
    if (!wire) {
      response.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'fake' });
      response.end(JSON.stringify({ object: 'list', path, method: request.method, received: raw }));
      return;
    }
    if (wire === 'chat') {
      const turn = await script(body!, request, response);
      if (turn === 'handled') return;
      if (body?.stream) writeStream(response, turn);
      else writeCompletion(response, turn);
      return;
    }
    const source = (body ?? {}) as Record<string, unknown>;
    let items: Array<Record<string, unknown>> = [];
    if (wire === 'responses') {
      const previous = typeof source.previous_response_id === 'string' ? stored.get(source.previous_response_id) : [];
      const input = typeof source.input === 'string' ? [{ role: 'user', content: source.input }] : Array.isArray(source.input) ? (source.input as Array<Record<string, unknown>>) : [];
      if (!previous) return writeError(response, 400, `Previous response with id '${String(source.previous_response_id)}' not found.`);
      // As OpenAI: a continuation must answer every call of the response it continues.
      const answered = new Set(input.map((item) => item.call_id));
      const unanswered = previous.filter((item) => item.type === 'function_call' && !previous.some((other) => other.type === 'function_call_output' && other.call_id === item.call_id) && !answered.has(item.call_id));
      if (unanswered.length > 0) return writeError(response, 400, `No tool output found for function call ${String(unanswered[0]!.call_id)}.`);
      items = [...previous, ...input];
    }
    const messages = wire === 'responses' ? responsesView(source.instructions, items) : wire === 'anthropic' ? anthropicView(source.system, source.messages) : completionsView(source.prompt);
    const turn = await script({ ...source, messages }, request, response);
    if (turn === 'handled') return;
    const streamed = source.stream === true;
    if (wire === 'responses') {
      const answer = responseJson(turn);
      stored.set(answer.id as string, [...items, ...(answer.output as Array<Record<string, unknown>>)]);
      if (!streamed) return writeJson(response, answer);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      return void response.end(responseEventsOf(answer).map(responseEvent).join(''));
    }
    if (wire === 'anthropic') {
      const answer = anthropicJson(turn);
      if (!streamed) return writeJson(response, answer);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      return void response.end(anthropicEventsOf(answer).map(anthropicEvent).join(''));
    }
    if (!streamed) return writeJson(response, textCompletionJson(turn));
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(sse(textCompletionEvents(turn)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function writeJson(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function writeError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: 'input', code: null } }));
}

export function completionJson(turn: ScriptedTurn, model = 'fake-model') {
  const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({ id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }));
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: turn.content === '' && toolCalls.length > 0 ? null : turn.content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}), refusal: null },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

export function writeCompletion(response: ServerResponse, turn: ScriptedTurn): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(completionJson(turn)));
}

/** The SSE data events of a turn, as OpenAI streams it: role, text in pieces, each tool call in pieces, finish, usage. */
export function streamEvents(turn: ScriptedTurn): string[] {
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'fake-model' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: '' })];
  for (const piece of turn.content.match(/.{1,8}/gs) ?? []) events.push(chunk({ content: piece }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    const args = JSON.stringify(call.args);
    events.push(chunk({ tool_calls: [{ index, id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of args.match(/.{1,5}/gs) ?? []) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, (turn.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'));
  events.push(JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
  events.push('[DONE]');
  return events;
}

export function writeStream(response: ServerResponse, turn: ScriptedTurn): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const data of streamEvents(turn)) response.write(`data: ${data}\n\n`);
  response.end();
}

/**
 * The support demo's hasty agent (examples/support-demo.ts) over OpenAI messages: it goes straight for the refund
 * unless its system prompt tells it to verify first; after the refund it wraps up.
 */
export function hastyAgent(body: RequestBody): ScriptedTurn {
  const messages = body.messages;
  const system = messages.filter((message) => message.role === 'system').map((message) => String(message.content)).join('\n');
  // Which tool ran is read from the call ids this agent gives its calls (tool messages carry no name in OpenAI's format);
  // a result that is the proxy's refusal (it answers a withheld call of a stored response) says it did not run.
  const ran = (name: string) => messages.some((message) => message.role === 'tool' && String(message.tool_call_id).startsWith(`call_${name === 'issue_refund' ? 'refund' : 'verify'}_`) && !/^(error|\[Panoptes\])/.test(String(message.content)));
  const turns = messages.filter((message) => message.role === 'assistant').length;
  if (ran('issue_refund')) return { content: 'Your refund of $42 is on its way. Is there anything else I can help with?' };
  if (ran('verify_identity') || !system.includes('verify')) return { content: '', toolCalls: [{ id: `call_refund_${turns}`, name: 'issue_refund', args: { order: 'A-1042', amount: 42 } }] };
  return { content: 'First I need to confirm who you are.', toolCalls: [{ id: `call_verify_${turns}`, name: 'verify_identity', args: { account: 'ACC-77' } }] };
}

/** The common fields of a fake chunk or completion. */
const BASE = { id: 'chatcmpl-fake', created: 1_700_000_000, model: 'fake-model' };

/** One streamed chunk's data with the given choices (raw shapes: any delta, any index, any finish). */
export function chunkData(choices: Array<{ index?: number; delta?: Record<string, unknown>; finish_reason?: string | null; [key: string]: unknown }>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...BASE, object: 'chat.completion.chunk', choices: choices.map((choice, at) => ({ index: at, finish_reason: null, ...choice })), ...extra });
}

/** A completion with the given raw choices (any message shape, any number of choices). */
export function completionWith(choices: Array<{ message: Record<string, unknown>; finish_reason?: string }>): Record<string, unknown> {
  return { ...BASE, object: 'chat.completion', choices: choices.map((choice, index) => ({ index, finish_reason: 'stop', logprobs: null, ...choice })), usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
}

/** SSE text of the given data events. */
export function sse(events: readonly string[]): string {
  return events.map((data) => `data: ${data}\n\n`).join('');
}

/** A script that answers every chat completion with these bytes, status and content type, whatever was asked. */
export function answerWith(body: string, { status = 200, contentType = 'application/json' }: { status?: number; contentType?: string | undefined } = {}): Script {
  return (_body, _request, response) => {
    response.writeHead(status, contentType === undefined ? {} : { 'content-type': contentType });
    response.end(body);
    return 'handled';
  };
}
