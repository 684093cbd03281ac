/**
 * A non-streamed Responses API answer, read whole: every output item that is a call found, the refused ones replaced
 * in place by a message item saying why, and, for a client that asked for a stream, the checked response as its events.
 * @module
 */
import { parseAnswerObject } from '../../answer-json.js';
import { record } from '../../answer-calls.js';
import type { ReadAnswer, Refusals } from '../route.js';
import { responseEvents } from './events.js';
import { callOfItem, outputTurn, withheldItem, withRefusalItems, type ResponseCall } from './items.js';

/**
 * Parses a Responses API answer and finds its calls, or says why it cannot be read (then it is withheld: a call in it
 * could not be checked). Nesting is checked on the text, before parsing.
 */
export function readResponse(text: string): ReadAnswer | { unreadable: string } {
  const parsed = parseAnswerObject(text);
  if ('unreadable' in parsed) return parsed;
  const response = parsed.object;
  const { output } = response;
  if (output != null && !Array.isArray(output)) return { unreadable: "its 'output' is not a list" };
  const items: unknown[] = output ?? [];
  const calls = items.flatMap((item, at) => callOfItem(item, at) ?? []);
  const decided = (refused: Refusals) => (refused.size === 0 || !Array.isArray(output) ? response : { ...response, output: withRefusalItems(items, calls, refused) });
  return {
    calls,
    content: outputTurn(items).content,
    json: (refused) => JSON.stringify(decided(refused)),
    events: (refused) => responseEvents(decided(refused)),
    delivered: (refused) => outputTurn(withRefusalItems(items, calls, refused)),
    withheld: (text) => readResponse(JSON.stringify({ ...response, output: [withheldItem(text)] })) as ReadAnswer,
    ...(typeof response.id === 'string' ? { id: response.id } : {}),
  };
}

export type { ResponseCall };
