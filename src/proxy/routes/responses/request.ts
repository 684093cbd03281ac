/**
 * A Responses API request (`POST /v1/responses`) as the monitor reads it: `instructions` is the system prompt, `input`
 * (text, or items) the conversation; the monitor's edits go back into them. A request that continues a response by
 * `previous_response_id` answers the calls the proxy withheld from it.
 * @module
 */
import type { ChatMessage } from '../../../messages/index.js';
import { record } from '../../answer-calls.js';
import { proxyError, type ProxyError } from '../../errors.js';
import { bounded, isId, namedSessionOf } from '../../session-id.js';
import { addedSystemText, itemEdits, withItemEdits } from '../item-edits.js';
import type { Continuation, NamedSession, RequestBody } from '../route.js';
import { itemMessages, type ItemMessages } from './items.js';
import type { ResponseRecords } from './response-records.js';

/** A `POST /v1/responses` body, as far as the proxy reads it. */
export interface ResponsesRequest extends RequestBody {
  input?: string | unknown[] | null;
  instructions?: unknown;
  previous_response_id?: unknown;
  conversation?: unknown;
  tools?: unknown;
  background?: unknown;
}

/**
 * Why `body` is not a Responses request the proxy can monitor: `input` must be text or a list of items (objects), and
 * `background` is refused, since a background response is fetched later from `/v1/responses/{id}`, whose answer the
 * proxy does not check.
 */
export function responsesProblem(body: RequestBody): ProxyError | undefined {
  const { input, background, instructions } = body;
  if (input != null && typeof input !== 'string' && !(Array.isArray(input) && input.every((item) => record(item) !== undefined))) {
    return proxyError(400, 'invalid_request_error', 'invalid_responses_request', "Not a Responses request the proxy can monitor: 'input' must be text or a list of items (objects).", 'input');
  }
  if (instructions != null && typeof instructions !== 'string') return proxyError(400, 'invalid_request_error', 'invalid_responses_request', "Not a Responses request the proxy can monitor: 'instructions' must be text.", 'instructions');
  if (background === true) {
    return proxyError(400, 'invalid_request_error', 'unsupported_background', 'The proxy checks an answer as it is returned: a background response would be fetched later from /v1/responses/{id}, which it does not check. Leave background out.', 'background');
  }
  return undefined;
}

/** The input as a list of items: text is one user message. */
function inputItems(body: ResponsesRequest): unknown[] {
  if (typeof body.input === 'string') return [{ role: 'user', content: body.input }];
  return Array.isArray(body.input) ? body.input : [];
}

/** The request as the core's messages, `instructions` first as the system prompt, with where each came from. */
export function responsesMessages(body: ResponsesRequest): ItemMessages {
  const { messages, sources } = itemMessages(inputItems(body));
  if (typeof body.instructions !== 'string' || body.instructions === '') return { messages, sources };
  return { messages: [{ role: 'system', content: body.instructions }, ...messages], sources: ['outside', ...sources] };
}

/**
 * The body with the monitor's edits carried over: guidance for the system prompt is appended to `instructions` (or
 * becomes them), text for a message is appended to its item (as an `input_text` part when its content is a list),
 * and an added message is an input item after the item its predecessor was read from. Unedited items are as sent.
 */
export function responsesEdited(body: ResponsesRequest, chat: readonly ChatMessage[], edited: readonly ChatMessage[]): ResponsesRequest {
  const edits = itemEdits(chat, responsesMessages(body).sources, edited);
  const system = addedSystemText(edits);
  let instructions = body.instructions;
  if (edits.outside !== '') instructions = `${typeof instructions === 'string' ? instructions : ''}${edits.outside}`;
  if (system !== undefined) instructions = system;
  const touchesInput = edits.appended.size > 0 || [...edits.added].some(([after, added]) => after !== -1 || added.some((message) => message.role !== 'system'));
  const input = touchesInput ? withItemEdits(inputItems(body), edits, appendToItem, (message) => ({ role: message.role, content: message.content })) : body.input;
  return { ...body, ...(instructions === body.instructions ? {} : { instructions }), ...(input === body.input ? {} : { input }) };
}

/** An item with text appended to its content. */
function appendToItem(value: unknown, suffix: string): unknown {
  const item = record(value);
  if (!item) return value;
  if (typeof item.content === 'string') return { ...item, content: `${item.content}${suffix}` };
  if (Array.isArray(item.content)) return { ...item, content: [...item.content, { type: 'input_text', text: suffix.replace(/^\n+/, '') }] };
  return item;
}

/**
 * The session a Responses request names: as a chat completion does (headers, `metadata`, `user`), else its
 * `conversation` (a conversation the upstream keeps: its id, or `{ id }`).
 */
export function responsesNamedSession(headers: Record<string, string | string[] | undefined>, body: ResponsesRequest): NamedSession | undefined {
  const named = namedSessionOf(headers, body);
  if (named) return named;
  const conversation = typeof body.conversation === 'string' ? body.conversation : record(body.conversation)?.id;
  return isId(conversation) ? { sessionId: bounded(conversation), source: 'conversation.id' } : undefined;
}

/**
 * The continuation of a request that names `previous_response_id`: the session the proxy recorded for that response,
 * and the request with an output for each call the proxy withheld from it (the refusal's text), since the upstream
 * stored the response with those calls and refuses a continuation that leaves one unanswered. An id the proxy did not
 * record (another proxy answered it, or this one restarted) continues no session.
 */
export async function responsesContinuation(records: ResponseRecords, body: ResponsesRequest): Promise<Continuation<ResponsesRequest> | undefined> {
  const id = body.previous_response_id;
  if (!isId(id)) return undefined;
  const found = await records.get(id);
  if (!found) return { sessionId: undefined, body };
  const items = inputItems(body);
  const answered = new Set(items.flatMap((item) => (typeof record(item)?.call_id === 'string' && String(record(item)!.type).endsWith('_output') ? [record(item)!.call_id] : [])));
  const missing = found.withheld.filter((call) => !answered.has(call.callId));
  if (missing.length === 0) return { sessionId: found.sessionId, body };
  const outputs = missing.map((call) => ({ type: call.kind === 'custom_tool_call' ? 'custom_tool_call_output' : 'function_call_output', call_id: call.callId, output: call.output }));
  return { sessionId: found.sessionId, body: { ...body, input: [...outputs, ...items] } };
}
