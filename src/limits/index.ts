/** Limits on what a loader accepts, shared by workflow and rulebase loading, so hostile files cost bounded time. */
export { assertMaxBytes, DEFAULT_MAX_BYTES, inputTooLarge, readTextWithin, type InputKind, type InputTooLarge } from './input-size.js';
export { MAX_NESTING_DEPTH } from './nesting.js';
