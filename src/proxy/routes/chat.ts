/**
 * `POST /v1/chat/completions`: the OpenAI chat-completions format, read by translate.ts (requests), answer-json.ts
 * (answers) and stream-gate.ts (streams).
 * @module
 */
import { offeredToolNames } from '../../messages/index.js';
import { firstChoiceDelivered, offeredNames, record } from '../answer-calls.js';
import { answerText, completionEvents, readCompletion, withoutRefusedCalls, type ReadCompletion } from '../answer-json.js';
import { proxyError } from '../errors.js';
import type { ChatCompletionRequest } from '../openai-types.js';
import { namedSessionOf } from '../session-id.js';
import { StreamGate } from '../stream-gate.js';
import { chatRequestProblem, toChatMessages, withEdits } from '../translate.js';
import type { GenerationRoute, ReadAnswer, Refusals } from './route.js';

/** The chat-completions route. */
export const chatRoute: GenerationRoute<ChatCompletionRequest> = {
  path: '/v1/chat/completions',
  label: 'chat completion',
  errors: 'openai',
  problem(body) {
    const problem = chatRequestProblem(body);
    if (problem) return proxyError(400, 'invalid_request_error', 'invalid_chat_request', `Not a chat completion request: ${problem}.`, 'messages');
    return nProblem(body.n);
  },
  namedSession: (headers, body) => namedSessionOf(headers, body),
  messages: (body) => toChatMessages(body.messages),
  edited: (body, chat, edited) => ({ ...body, messages: withEdits(body.messages, chat, edited) }),
  offered: (body) => ({ names: offeredNames(body), available: offeredToolNames(body.tools) }),
  read(text) {
    const read = readCompletion(text);
    return 'unreadable' in read ? read : chatAnswer(read, read.content);
  },
  gate: (options) => new StreamGate(options),
};

/**
 * The 400 for an `n` other than 1: the proxy monitors the first choice, and a session records one answer per step
 * (see `refusedOnSight`).
 */
export function nProblem(n: unknown) {
  if (n === undefined || n === null || n === 1) return undefined;
  return proxyError(400, 'invalid_request_error', 'unsupported_n', 'The proxy monitors one choice per call: send n = 1 (or leave it out).', 'n');
}

/**
 * A completion read by `readCompletion`, as a route's answer; `content` is the first choice's text and `events` how it
 * is written as a stream (a chat completion's chunks by default).
 */
export function chatAnswer(
  read: ReadCompletion,
  content: string,
  events: (completion: Record<string, unknown>) => string = completionEvents,
  replaced: (completion: Record<string, unknown>, text: string) => Record<string, unknown> = withMessageText,
): ReadAnswer {
  const decided = (refused: Refusals) => (refused.size === 0 ? read.completion : withoutRefusedCalls(read, refused));
  return {
    withheld: (text) => chatAnswer({ completion: replaced(read.completion, text), calls: [], content: text, sites: [] }, text, events, replaced),
    calls: read.calls,
    content,
    json: (refused) => answerText(decided(refused)),
    events: (refused) => events(decided(refused)),
    delivered: (refused) => firstChoiceDelivered(read.calls, content, refused),
  };
}

/**
 * A completion whose first choice says `text` and nothing else (no call), finishing with `content_filter`; the other
 * choices are dropped (only the first is monitored).
 */
export function withMessageText(completion: Record<string, unknown>, text: string): Record<string, unknown> {
  const first = record(Array.isArray(completion.choices) ? completion.choices[0] : undefined) ?? {};
  const message = record(first.message) ?? {};
  const { tool_calls: _calls, function_call: _legacy, refusal: _refusal, ...kept } = message;
  return { ...completion, choices: [{ ...first, index: 0, message: { role: 'assistant', ...kept, content: text }, finish_reason: 'content_filter' }] };
}
