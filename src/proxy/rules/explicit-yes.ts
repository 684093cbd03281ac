import { isPlainYes } from '../../grounding/index.js';

/**
 * Whether a user's reply is an explicit yes: the proxy reads the user's answer to the question its refusal told the
 * model to put to them by the core's one rule, `isPlainYes` (a sentence opening with agreement, nothing taking it
 * back, no question asked back).
 * @deprecated Use `isPlainYes`: the same function under its core name.
 * @example
 * isExplicitYes('Yes, please go ahead!') // true
 * isExplicitYes('yes but only half') // false
 */
export const isExplicitYes: (text: string) => boolean = isPlainYes;
