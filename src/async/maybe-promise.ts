/**
 * Values that are usually there at once (a session in the in-memory store) and sometimes only later (Redis, an
 * embedder, an async guard). Continuing synchronously when the value is there spares a model call the promises and
 * microtask hops of `await`, which cost far more inside an agent's run than in a tight loop.
 */

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

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
export function andThen<T, U>(value: T | PromiseLike<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromiseLike(value) ? Promise.resolve(value).then(next) : next(value);
}

/**
 * Runs `work` and continues with its value, or with `recover` when it throws or rejects: synchronously when `work`
 * answers at once. An error thrown by `next` is not recovered: it propagates (thrown, or as the rejection).
 * @example
 * attempt(() => store.get(id), (session) => session ?? fresh(), (error) => (log(error), fresh()))
 */
export function attempt<T, U>(work: () => T | PromiseLike<T>, next: (value: T) => MaybePromise<U>, recover: (error: unknown) => MaybePromise<U>): MaybePromise<U> {
  let value: T | PromiseLike<T>;
  try {
    value = work();
  } catch (error) {
    return recover(error);
  }
  return isPromiseLike(value) ? Promise.resolve(value).then(next, recover) : next(value);
}
