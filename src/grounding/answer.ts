import type { Exchange } from '../facts/index.js';
import { hashString } from '../hash/cyrb53.js';

/** One message of a conversation as the sentinel reads it: who said it, and its text. */
export interface ConversationTurn {
  role: 'user' | 'assistant';
  text: string;
}

/**
 * The conversation's last exchange: the user's latest message, and every assistant text since the user's message before
 * it (what the user was answering). `undefined` when the user has not spoken.
 * @example
 * exchangeOf([{ role: 'assistant', text: 'Cancel ABC123? (yes/no)' }, { role: 'user', text: 'yes' }])
 * // { id: '1:…', asked: 'Cancel ABC123? (yes/no)', answer: 'yes' }
 */
export function exchangeOf(turns: readonly ConversationTurn[]): Exchange | undefined {
  let last = -1;
  let ordinal = 0;
  for (let index = 0; index < turns.length; index++) {
    if (turns[index]?.role === 'user') {
      last = index;
      ordinal++;
    }
  }
  if (last === -1) return undefined;
  const asked: string[] = [];
  for (let index = last - 1; index >= 0 && turns[index]!.role !== 'user'; index--) asked.unshift(turns[index]!.text);
  const answer = turns[last]!.text;
  return { id: `${ordinal}:${hashString(answer).toString(36)}`, asked: asked.join('\n'), answer };
}

// A sentence that agrees: "yes", "Yes, please proceed.", "ok go ahead", "confirmed", "that's correct", "I agree".
const AGREES =
  /^\s*(?:yes|yeah|yep|yup|sure|ok(?:ay)?|confirm(?:ed)?|i confirm|approved?|i approve|i agree|agreed|correct|that'?s (?:right|correct)|(?:please )?go ahead|(?:please )?proceed|please do|do it|sounds good|absolutely|definitely)\b/i;
// Anything that takes it back or changes the request ("yes, but on the 21st", "yes. no wait", "not that one").
const TAKES_BACK = /\b(?:not|don'?t|do not|wait|but|instead|actually|however|rather|hold on|stop|cancel that)\b|(?:^|[.!?,;]\s*)no\b/i;

/**
 * Whether a user's message is an explicit yes to what they were asked, and only that. The one rule every part of
 * Panoptes reads a yes by (the sentinel's grounded confirmations, `record_confirmation`, the proxy's confirmations):
 * - one of its sentences opens with agreement ("Change of plans. Yes, please cancel it.", "OK, do it", "I confirm");
 * - nothing in it takes the yes back or changes the request ("yes but on the 21st", "yes. no wait", "not that one");
 * - it asks nothing back: a message with a question mark ("yes?", "Yes. Will I get a receipt?") is not an answer,
 *   and the agent asks again.
 * Case, punctuation and spacing aside; only the first 500 characters are read.
 * @example
 * isPlainYes('Yes, please go ahead.') // true
 * isPlainYes('yes but make it the 21st') // false
 * isPlainYes('yes?') // false
 */
export function isPlainYes(answer: string): boolean {
  const text = answer.slice(0, 500);
  if (text.includes('?')) return false;
  return text.split(/[.!\n]+/).some((sentence) => AGREES.test(sentence)) && !TAKES_BACK.test(text);
}
