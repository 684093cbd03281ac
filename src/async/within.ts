import type { Timers } from '../clock/index.js';
import { isPromiseLike, type MaybePromise } from './maybe-promise.js';

/** What {@link within} gives when the budget runs out first: the work is abandoned, not cancelled. */
export class TimedOut extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'TimedOut';
  }
}

/**
 * `value` if it is there at once; if it is a promise, the promise raced against a timer of `ms`, rejecting with
 * {@link TimedOut} when the timer wins. A value that is already there pays nothing (no timer, no promise), so a
 * store in memory keeps the monitor's synchronous path. The timer is cleared as soon as the value settles, and a
 * late rejection of abandoned work is swallowed, so it never becomes an unhandled rejection.
 * @example
 * await within(store.get(id), 1000, systemTimers) // the session, or a TimedOut rejection after 1 s
 */
export function within<T>(value: MaybePromise<T> | PromiseLike<T>, ms: number, timers: Timers): MaybePromise<T> {
  if (!isPromiseLike(value)) return value;
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const handle = timers.setTimeout(() => {
      if (done) return;
      done = true;
      reject(new TimedOut(ms));
    }, ms);
    const settle = (finish: () => void) => {
      if (done) return;
      done = true;
      timers.clearTimeout(handle);
      finish();
    };
    Promise.resolve(value).then(
      (result) => settle(() => resolve(result)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}
