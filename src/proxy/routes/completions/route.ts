/**
 * `POST /v1/completions`, the legacy completions: text only. The answer is classified like a chat completion's; it
 * cannot carry a tool call, so one found in it anyway (an upstream that answers in the chat format) is refused and
 * taken out. Streams go through the chat stream gate reading each choice's `text`.
 * @module
 */
import { offeredNames } from '../../answer-calls.js';
import { readCompletion } from '../../answer-json.js';
import { record } from '../../answer-calls.js';
import { DONE_EVENT, sseEvent } from '../../sse.js';
import { namedSessionOf } from '../../session-id.js';
import { StreamGate } from '../../stream-gate.js';
import { chatAnswer } from '../chat.js';
import type { GenerationRoute } from '../route.js';
import { completionEdited, completionMessages, completionProblem, type CompletionRequest } from './request.js';

/** The legacy completions route. */
export const completionsRoute: GenerationRoute<CompletionRequest> = {
  path: '/v1/completions',
  label: 'completion',
  errors: 'openai',
  problem: completionProblem,
  namedSession: (headers, body) => namedSessionOf(headers, body),
  messages: completionMessages,
  edited: completionEdited,
  offered: (body) => ({ names: offeredNames(body), available: undefined }),
  read(text) {
    const read = readCompletion(text);
    if ('unreadable' in read) return read;
    const first = record((read.completion.choices as unknown[] | undefined)?.[0]);
    return chatAnswer(read, typeof first?.text === 'string' ? first.text : '', textCompletionEvents, withCompletionText);
  },
  gate: (options) => new StreamGate({ ...options, format: 'completions' }),
  noCalls: 'a legacy completion cannot carry a tool call',
};

/**
 * A checked legacy completion as the SSE events of a stream, for a client that asked for one when the upstream
 * answered with JSON: per choice, its text as one chunk and a finish chunk; then the usage, and `[DONE]`. A body
 * without choices (an error object) goes as one event.
 */
export function textCompletionEvents(completion: Record<string, unknown>): string {
  const { choices, usage, ...rest } = completion;
  if (!Array.isArray(choices)) return sseEvent(JSON.stringify(completion)) + DONE_EVENT;
  const chunk = (fields: Record<string, unknown>) => sseEvent(JSON.stringify({ ...rest, ...fields }));
  let out = '';
  choices.forEach((value: unknown, at: number) => {
    const { finish_reason: finish, index, ...choice } = record(value) ?? {};
    const choiceIndex = typeof index === 'number' ? index : at;
    out += chunk({ choices: [{ ...choice, index: choiceIndex, finish_reason: null }] });
    out += chunk({ choices: [{ index: choiceIndex, text: '', logprobs: null, finish_reason: finish ?? 'stop' }] });
  });
  if (usage != null) out += chunk({ choices: [], usage });
  return out + DONE_EVENT;
}

/** A legacy completion whose first choice's text is `text`, finishing with `content_filter`; the other choices dropped. */
export function withCompletionText(completion: Record<string, unknown>, text: string): Record<string, unknown> {
  const first = record(Array.isArray(completion.choices) ? completion.choices[0] : undefined) ?? {};
  const { message: _message, delta: _delta, ...kept } = first;
  return { ...completion, choices: [{ ...kept, index: 0, text, finish_reason: 'content_filter' }] };
}
