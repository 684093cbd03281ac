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

// A sentence that agrees: "yes", "Yes, please proceed.", "ok go ahead", "confirmed", "that's correct".
const AGREES = /^\s*(?:yes|yeah|yep|yup|sure|ok(?:ay)?|confirm(?:ed)?|i confirm|correct|that'?s (?:right|correct)|go ahead|proceed|please do|do it|sounds good|absolutely|definitely)\b/i;
// Anything that takes it back or changes the request ("yes, but on the 21st", "yes. no wait", "not that one").
const TAKES_BACK = /\b(?:not|don'?t|do not|wait|but|instead|actually|however|rather|hold on|stop|cancel that)\b|(?:^|[.!?,;]\s*)no\b/i;

/**
 * Whether a user's message is an explicit yes to what they were asked, and only that: one of its sentences opens with
 * agreement ("Change of plans. Yes, please cancel it.") and nothing in it takes the yes back or changes the request.
 * @example
 * isPlainYes('Yes, please go ahead.') // true
 * isPlainYes('yes but make it the 21st') // false
 */
export function isPlainYes(answer: string): boolean {
  const text = answer.slice(0, 500);
  return text.split(/[.!?\n]+/).some((sentence) => AGREES.test(sentence)) && !TAKES_BACK.test(text);
}
