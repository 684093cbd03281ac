/**
 * An Anthropic Messages request (`POST /v1/messages`) as the monitor reads it: `system` is the system prompt, each
 * message one or more of the core's messages (a user message's `tool_result` blocks are tool messages, its text a user
 * message; an assistant message's `tool_use` blocks are its calls); the monitor's edits go back into them. Shapes
 * follow Anthropic's Messages API reference.
 * @module
 */
import type { ChatMessage, ToolCall } from '../../../messages/index.js';
import { record } from '../../answer-calls.js';
import { proxyError, type ProxyError } from '../../errors.js';
import { namedSessionOf } from '../../session-id.js';
import { addedSystemText, itemEdits, withItemEdits, type ItemEdits, type ItemSource } from '../item-edits.js';
import type { NamedSession, RequestBody } from '../route.js';

/** One message of a Messages request (or the answer, as the client sends it back). */
export interface AnthropicMessage {
  role: string;
  content: unknown;
  [key: string]: unknown;
}

/** A `POST /v1/messages` body, as far as the proxy reads it. */
export interface MessagesRequest extends RequestBody {
  messages: AnthropicMessage[];
  system?: unknown;
  tools?: unknown;
  metadata?: unknown;
}

/** Why `body` is not a Messages request the proxy can monitor: a non-empty `messages` list of objects with a string `role`. */
export function messagesProblem(body: RequestBody): ProxyError | undefined {
  const { messages } = body;
  const bad = (why: string) => proxyError(400, 'invalid_request_error', 'invalid_messages_request', `Not a Messages request: ${why}.`, 'messages');
  if (!Array.isArray(messages)) return bad("'messages' is required: a list of messages");
  if (messages.length === 0) return bad("'messages' is empty: a request needs at least one message");
  const at = messages.findIndex((message) => typeof record(message)?.role !== 'string');
  return at === -1 ? undefined : bad(`'messages[${at}]' must be an object with a string 'role'`);
}

/** The text of content: a string as it is, else its `text` blocks joined. */
export function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((block) => (record(block)?.type === 'text' && typeof record(block)!.text === 'string' ? [record(block)!.text as string] : [])).join('\n');
}

/** A `tool_use` block's input as arguments: the object it is, else none (such a call is refused when answered). */
function inputOf(input: unknown): Record<string, unknown> {
  return record(input) ?? {};
}

/**
 * One message as the core's messages: an assistant's text and `tool_use` calls as one turn; a user's `tool_result`
 * blocks as tool messages, then its other text as a user message (one with neither, an image alone, still a user turn).
 */
export function anthropicMessages(message: AnthropicMessage): ChatMessage[] {
  const blocks = Array.isArray(message.content) ? message.content.map(record) : [];
  if (message.role === 'assistant') {
    const toolCalls: ToolCall[] = blocks.flatMap((block) => (block?.type === 'tool_use' && typeof block.name === 'string' ? [{ ...(typeof block.id === 'string' ? { id: block.id } : {}), name: block.name, args: inputOf(block.input) }] : []));
    const content = blockText(message.content);
    return [toolCalls.length > 0 ? { role: 'assistant', content, toolCalls } : { role: 'assistant', content }];
  }
  const results: ChatMessage[] = blocks.flatMap((block) =>
    block?.type === 'tool_result' ? [{ role: 'tool' as const, content: blockText(block.content), ...(typeof block.tool_use_id === 'string' ? { toolCallId: block.tool_use_id } : {}), ...(block.is_error === true ? { isError: true } : {}) }] : [],
  );
  const text = blockText(message.content);
  const hasOther = typeof message.content === 'string' || blocks.some((block) => block?.type !== 'tool_result');
  return hasOther || results.length === 0 ? [...results, { role: 'user', content: text }] : results;
}

/** The request as the core's messages, `system` first, with the message each was read from. */
export function requestMessages(body: MessagesRequest): { messages: ChatMessage[]; sources: ItemSource[] } {
  const messages: ChatMessage[] = [];
  const sources: ItemSource[] = [];
  const system = blockText(body.system);
  if (system !== '') {
    messages.push({ role: 'system', content: system });
    sources.push('outside');
  }
  body.messages.forEach((message, at) => {
    for (const read of anthropicMessages(message)) {
      messages.push(read);
      sources.push(at);
    }
  });
  return { messages, sources };
}

/**
 * The body with the monitor's edits carried over: guidance for the system prompt is appended to `system` (a text
 * block when it is a list of blocks) or becomes it; text for a message is appended to it (a `text` block when its
 * content is a list); a user message added after a user message joins it as a text block (the API takes turns in
 * alternation), any other is a message of its own.
 */
export function messagesEdited(body: MessagesRequest, chat: readonly ChatMessage[], edited: readonly ChatMessage[]): MessagesRequest {
  const edits = joinUserMessages(itemEdits(chat, requestMessages(body).sources, edited), body.messages);
  const added = addedSystemText(edits);
  let system = body.system;
  if (edits.outside !== '') system = appendContent(system, edits.outside);
  if (added !== undefined) system = added;
  const messages = edits.appended.size > 0 || edits.added.size > 0 ? withItemEdits(body.messages, edits, (message, suffix) => ({ ...message, content: appendContent(message.content, suffix) }), (message) => ({ role: message.role, content: message.content })) : body.messages;
  return { ...body, ...(system === body.system ? {} : { system }), ...(messages === body.messages ? {} : { messages }) };
}

/** Moves each user message added after a user message into that message, as appended text. */
function joinUserMessages(edits: ItemEdits, messages: readonly AnthropicMessage[]): ItemEdits {
  for (const [after, added] of edits.added) {
    if (after === -1 || messages[after]?.role !== 'user') continue;
    const joined = added.filter((message) => message.role === 'user');
    if (joined.length === 0) continue;
    edits.appended.set(after, (edits.appended.get(after) ?? '') + joined.map((message) => `\n\n${message.content}`).join(''));
    const rest = added.filter((message) => message.role !== 'user');
    if (rest.length > 0) edits.added.set(after, rest);
    else edits.added.delete(after);
  }
  return edits;
}

/** Content with text appended: to a string, or as a `text` block to a list of blocks. */
function appendContent(content: unknown, suffix: string): unknown {
  if (Array.isArray(content)) return [...content, { type: 'text', text: suffix.replace(/^\n+/, '') }];
  return `${typeof content === 'string' ? content : ''}${suffix}`;
}

/** The session a Messages request names: the headers, else `metadata.user_id` (Anthropic's only metadata field), as `user`. */
export function messagesNamedSession(headers: Record<string, string | string[] | undefined>, body: MessagesRequest): NamedSession | undefined {
  return namedSessionOf(headers, { user: record(body.metadata)?.user_id });
}

/** The tool names a Messages request offers (every tool has a `name`, client and server tools alike). */
export function offeredMessagesNames(tools: unknown): ReadonlySet<string> | undefined {
  if (!Array.isArray(tools)) return undefined;
  return new Set(tools.flatMap((tool) => (typeof record(tool)?.name === 'string' ? [record(tool)!.name as string] : [])));
}
