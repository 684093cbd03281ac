/**
 * A non-streamed Anthropic Messages answer, read whole: every `tool_use` block found, the refused ones replaced in
 * place by a text block saying why, and, for a client that asked for a stream, the checked message as its events.
 * @module
 */
import { parseAnswerObject } from '../../answer-json.js';
import { record } from '../../answer-calls.js';
import type { ReadAnswer, Refusals } from '../route.js';
import { callOfBlock, contentTurn, decidedMessage, messageEvents } from './blocks.js';

/**
 * Parses a Messages answer and finds its calls, or says why it cannot be read (then it is withheld: a call in it
 * could not be checked). Nesting is checked on the text, before parsing.
 */
export function readMessage(text: string): ReadAnswer | { unreadable: string } {
  const parsed = parseAnswerObject(text);
  if ('unreadable' in parsed) return parsed;
  const message = parsed.object;
  const { content } = message;
  if (content != null && !Array.isArray(content)) return { unreadable: "its 'content' is not a list" };
  const blocks: unknown[] = content ?? [];
  const calls = blocks.flatMap((block, at) => callOfBlock(block, at) ?? []);
  const decided = (refused: Refusals) => (refused.size === 0 || !Array.isArray(content) ? message : decidedMessage(message, blocks, calls, refused));
  return {
    calls,
    content: contentTurn(blocks).content,
    json: (refused) => JSON.stringify(decided(refused)),
    events: (refused) => messageEvents(decided(refused)),
    delivered: (refused) => contentTurn(decidedMessage(message, blocks, calls, refused).content as unknown[]),
    withheld: (text) => readMessage(JSON.stringify({ ...message, content: [{ type: 'text', text }], stop_reason: 'end_turn' })) as ReadAnswer,
  };
}
