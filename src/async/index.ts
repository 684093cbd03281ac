/** Values that are there now or later: continue synchronously when they are there, so hot paths make no promises. */
export { andThen, attempt, isPromiseLike, type MaybePromise } from './maybe-promise.js';
export { TimedOut, within } from './within.js';
