/**
 * A non-streamed answer, read whole: every call in every choice found (`message` and, from upstreams that send a
 * chunk as a completion, `delta`; `tool_calls` and the legacy `function_call`), the refused ones taken out wherever
 * they were, and, for a client that asked for a stream, the checked answer as the events of one.
 * @module
 */
import { MAX_NESTING, nestsDeeperThan } from './answer-body.js';
import { callsIn, record, type FoundCall } from './answer-calls.js';
import { refusalText, type RefusedToolCall } from './enforce.js';
import { DONE_EVENT, sseEvent } from './sse.js';
import { textOf } from './translate.js';

/** Where calls were found: one message (or delta) of one choice, and its calls in order. */
interface CallSite {
  choice: number;
  key: 'message' | 'delta';
  calls: FoundCall[];
}

/** A parsed completion with its calls found: `calls` to decide, `content` (the first choice's text) to classify. */
export interface ReadCompletion {
  completion: Record<string, unknown>;
  calls: FoundCall[];
  content: string;
  sites: CallSite[];
}

/**
 * The top-level object of a JSON answer, or why it cannot be read: nested too deep (checked on the text, before
 * parsing), not JSON, or not an object. Every route's JSON reader starts here.
 */
export function parseAnswerObject(text: string): { object: Record<string, any> } | { unreadable: string } {
  if (nestsDeeperThan(text, MAX_NESTING)) return { unreadable: `it nests deeper than ${MAX_NESTING} levels` };
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { unreadable: 'it is not valid JSON' };
  }
  const object = record(value);
  return object ? { object } : { unreadable: 'it is not a JSON object' };
}

/**
 * Parses a JSON answer and finds its calls, or says why it cannot be read (then it is withheld: a call in it could
 * not be checked). Nesting is checked on the text, before parsing.
 */
export function readCompletion(text: string): ReadCompletion | { unreadable: string } {
  const parsed = parseAnswerObject(text);
  if ('unreadable' in parsed) return parsed;
  const completion = parsed.object;
  const { choices } = completion;
  if (choices != null && !Array.isArray(choices)) return { unreadable: "its 'choices' is not a list" };
  const sites: CallSite[] = [];
  (choices ?? []).forEach((choice: unknown, at: number) => {
    for (const key of ['message', 'delta'] as const) {
      const message = record(record(choice)?.[key]);
      if (message) sites.push({ choice: at, key, calls: callsIn(message, at) });
    }
  });
  const first = record(record(choices?.[0])?.message);
  return { completion, calls: sites.flatMap((site) => site.calls), content: textOf(first?.content), sites };
}

/**
 * The text of an answer as the proxy parsed it, never the upstream's bytes: JSON that repeats a key is read one way
 * here (the last wins) and may be read another by the client's parser, which would then see what was not checked.
 */
export function answerText(completion: Record<string, unknown>): string {
  return JSON.stringify(completion);
}

/**
 * The completion without its refused calls: each is taken out of the message that carried it, whose content gets
 * the refusal text appended; a choice left with no call and a `finish_reason` of `tool_calls` (or `function_call`)
 * finishes with `stop`.
 */
export function withoutRefusedCalls(read: ReadCompletion, refused: ReadonlyMap<FoundCall, RefusedToolCall>): Record<string, unknown> {
  const choices = [...(read.completion.choices as unknown[])];
  for (const site of read.sites) {
    const reasons = site.calls.flatMap((call) => refused.get(call) ?? []);
    if (reasons.length === 0) continue;
    const choice = record(choices[site.choice])!;
    const message = record(choice[site.key])!;
    const { tool_calls: calls, function_call: legacy, ...rest } = message;
    const entries: unknown[] = Array.isArray(calls) ? calls : calls != null ? [calls] : [];
    const kept = entries.filter((_entry, at) => !refused.has(site.calls[at]!));
    const keptLegacy = legacy != null && !refused.has(site.calls[entries.length]!);
    const edited = { ...rest, content: withText(message.content, refusalText(reasons)), ...(kept.length > 0 ? { tool_calls: kept } : {}), ...(keptLegacy ? { function_call: legacy } : {}) };
    const finished = kept.length === 0 && !keptLegacy && (choice.finish_reason === 'tool_calls' || choice.finish_reason === 'function_call');
    choices[site.choice] = { ...choice, [site.key]: edited, ...(finished ? { finish_reason: 'stop' } : {}) };
  }
  return { ...read.completion, choices };
}

/**
 * A checked completion as the SSE events of a stream, for a client that asked for one when the upstream answered
 * with JSON: per choice, its message as one delta (tool calls numbered) and a finish chunk; then the usage, and
 * `[DONE]`. A body without choices (an error object) goes as one event, which OpenAI clients raise.
 */
export function completionEvents(completion: Record<string, unknown>): string {
  const { choices, usage, object: _object, ...rest } = completion;
  if (!Array.isArray(choices)) return sseEvent(JSON.stringify(completion)) + DONE_EVENT;
  const chunk = (fields: Record<string, unknown>) => sseEvent(JSON.stringify({ ...rest, object: 'chat.completion.chunk', ...fields }));
  let out = '';
  choices.forEach((value: unknown, at: number) => {
    const { message, delta, finish_reason: finish, index, ...choice } = record(value) ?? {};
    const { tool_calls: calls, ...fields } = record(message) ?? record(delta) ?? {};
    const numbered = Array.isArray(calls) ? calls.map((call: unknown, position: number) => ({ index: position, ...record(call) })) : undefined;
    const choiceIndex = typeof index === 'number' ? index : at;
    out += chunk({ choices: [{ ...choice, index: choiceIndex, delta: { ...fields, ...(numbered ? { tool_calls: numbered } : {}) }, finish_reason: null }] });
    out += chunk({ choices: [{ index: choiceIndex, delta: {}, finish_reason: finish ?? 'stop' }] });
  });
  if (usage != null) out += chunk({ choices: [], usage });
  return out + DONE_EVENT;
}

/** `content` with `text` appended: after a blank line to text, as a text part to parts, else `text` alone. */
function withText(content: unknown, text: string): unknown {
  if (typeof content === 'string' && content !== '') return `${content}\n\n${text}`;
  if (Array.isArray(content)) return [...content, { type: 'text', text }];
  return text;
}
