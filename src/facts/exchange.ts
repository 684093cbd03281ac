/**
 * The last exchange of a conversation: the user's latest message and what the assistant said to them since their
 * message before it (the message they answered). A call-bound confirmation that names parameters counts the user's yes
 * only for a call whose arguments that message stated, and only once.
 */
export interface Exchange {
  /** Which user message this is: its position among the user's messages and a hash of its text. */
  id: string;
  /** The assistant's words the user answered (every assistant text since the user's previous message). */
  asked: string;
  /** The user's message. */
  answer: string;
  /** The call (a confirmation reference) this yes already confirmed: a yes counts once. */
  usedBy?: string;
}

/** Longest text of an exchange kept: a restatement is short; a huge message is cut, not stored whole. */
export const MAX_EXCHANGE_TEXT = 16_000;

/** An exchange as kept: both texts cut to {@link MAX_EXCHANGE_TEXT}. */
export function boundedExchange(exchange: Exchange): Exchange {
  return { ...exchange, asked: exchange.asked.slice(0, MAX_EXCHANGE_TEXT), answer: exchange.answer.slice(0, MAX_EXCHANGE_TEXT) };
}
