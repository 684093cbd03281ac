/**
 * Whether a user's reply is an explicit yes: how the proxy, which cannot pause a call to ask, reads the user's answer
 * to the question its refusal told the model to put to them.
 * @module
 */

// Short replies only: "yes, but for the other order" is not a yes to this call, so anything beyond these is not one.
const AGREE = '(?:yes|yeah|yep|ok|okay|sure|confirm|confirmed|i confirm|approve|approved|i approve|i agree|agreed)';
const GO = '(?:go ahead|proceed|do it|please do)';
const EXPLICIT_YES = new RegExp(`^(?:${AGREE}(?: ${AGREE})*(?: please)?(?: ${GO})?(?: please)?|(?:please )?${GO}(?: please)?)$`);

/**
 * Whether `text` is an explicit yes ("yes", "Yes, please go ahead.", "OK, do it", "I confirm"); case, punctuation and
 * spacing aside. Anything longer, qualified or asked back ("yes?") is not: the model asks again.
 * @example
 * isExplicitYes('Yes, please go ahead!') // true
 * isExplicitYes('yes but only half') // false
 */
export function isExplicitYes(text: string): boolean {
  // A question back ("yes?") is not an answer.
  if (text.includes('?')) return false;
  const words = text.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ' ').replace(/\s+/g, ' ').trim();
  return words.length <= 60 && EXPLICIT_YES.test(words);
}
