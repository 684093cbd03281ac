/**
 * Values that are usually there at once (a session in the in-memory store) and sometimes only later (Redis, an
 * embedder, an async guard). Continuing synchronously when the value is there spares a model call the promises and
 * microtask hops of `await`, which cost far more inside an agent's run than in a tight loop.
 */

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | PromiseLike<T>;

/**
 * Whether a value is a promise (anything with a `then` method, as `await` sees it).
 * @example
 * isPromiseLike(Promise.resolve(1)) // true
 * isPromiseLike(1) // false
 */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/**
 * Calls `next` with the value: at once when it is there, after it resolves when it is a promise (a rejection skips
 * `next` and rejects the result).
 * @example
 * andThen(2, (n) => n * 2) // 4, synchronously
 * andThen(Promise.resolve(2), (n) => n * 2) // a promise of 4
 */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromiseLike(value) ? Promise.resolve(value).then(next) : next(value);
}
