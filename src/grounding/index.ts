/**
 * What a user's yes confirms: whether a message is a plain yes, the exchange it answered, and whether the message it
 * answered stated a call's arguments. Shared by the sentinel's grounded confirmations and the workflows' grounded
 * constraints, so both read a yes the same way.
 */
export { exchangeOf, isPlainYes, type ConversationTurn } from './answer.js';
export { normaliseStatement, unstatedArguments } from './statement.js';
