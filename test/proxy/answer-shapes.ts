/**
 * The client's side of the answer tests: every tool-call name a body carries, in any form a client could read it
 * (a JSON completion or an SSE stream, whatever its content type; `tool_calls` and the legacy `function_call`, in
 * every choice, in messages and deltas, name pieces put together as the `openai` SDK's accumulator does, chunks after
 * the finish included).
 */
import { createParser } from 'eventsource-parser';

/** The names of every call `body` carries, one per call. */
export function callNamesIn(body: string): string[] {
  const whole = parsed(body.replace(/^\uFEFF/, ''));
  if (whole !== undefined) return namesInCompletion(whole);
  const names = new Map<string, string>();
  const parser = createParser({
    onEvent: (event) => {
      const chunk = parsed(event.data);
      if (chunk === undefined) return;
      for (const name of namesInCompletion(chunk)) names.set(`whole:${names.size}`, name); // a chunk's message, or a whole delta
      for (const [at, choice] of choicesOf(chunk)) {
        const delta = record(choice.delta);
        if (!delta) continue;
        for (const [slot, call] of callEntries(delta.tool_calls)) {
          const index = typeof call.index === 'number' ? call.index : slot;
          const piece = nameOf(call);
          if (piece !== undefined) names.set(`${at}:tool:${index}`, (names.get(`${at}:tool:${index}`) ?? '') + piece);
        }
        const legacy = record(delta.function_call);
        if (legacy && typeof legacy.name === 'string') names.set(`${at}:function`, (names.get(`${at}:function`) ?? '') + legacy.name);
      }
    },
  });
  parser.feed(body);
  return [...names.values()];
}

function namesInCompletion(value: unknown): string[] {
  const names: string[] = [];
  for (const [, choice] of choicesOf(value)) {
    for (const message of [record(choice.message), record(choice.delta)]) {
      if (!message) continue;
      for (const [, call] of callEntries(message.tool_calls)) {
        const name = nameOf(call);
        if (name !== undefined) names.push(name);
      }
      const legacy = record(message.function_call);
      if (legacy && typeof legacy.name === 'string') names.push(legacy.name);
    }
  }
  return names;
}

function choicesOf(value: unknown): Array<[number, Record<string, unknown>]> {
  const choices = record(value)?.choices;
  if (!Array.isArray(choices)) return [];
  return choices.flatMap((choice, at) => {
    const entry = record(choice);
    return entry ? [[typeof entry.index === 'number' ? entry.index : at, entry] as [number, Record<string, unknown>]] : [];
  });
}

function callEntries(calls: unknown): Array<[number, Record<string, unknown>]> {
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call, slot) => {
    const entry = record(call);
    return entry ? [[slot, entry] as [number, Record<string, unknown>]] : [];
  });
}

function nameOf(call: Record<string, unknown>): string | undefined {
  const name = record(call.function)?.name ?? record(call.custom)?.name;
  return typeof name === 'string' ? name : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The refused call of the support workflow in a fresh session (a refund before the identity check), as the tests write it. */
export const REFUND = 'issue_refund';

/** Spellings of `issue_refund` that a lax tool lookup could still run. */
export const REFUND_VARIANTS: readonly string[] = [
  'Issue_Refund',
  ' issue_refund ',
  'issue_refund\u0000',
  'issue\u200b_refund',
  '\u0456ssue_r\u0435fund', // Cyrillic i and e
  '\uff49ssue_refund', // a fullwidth i
];
