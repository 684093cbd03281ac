import type { Timers } from '../clock/index.js';
import type { SessionStore } from '../store/index.js';
import type { createMissCounter } from './fail-open.js';
import { TimedOut, within, type MaybePromise } from '../async/index.js';

/** Options of {@link createSessionIo}. */
export interface SessionIoOptions<Session> {
  /** Budget of one store call in milliseconds; past it the call is abandoned and counted. */
  timeoutMs: number;
  timers: Timers;
  /** Whether a value the store gave back is a session; one that is not is discarded (counted). */
  isSession: (value: unknown) => value is Session;
}

/**
 * Reads and writes sessions through any store, failing open and bounded: a read that fails,
 * does not answer within `timeoutMs`, or gives back something that is not a session gives no session (it restarts
 * from the initial state); a write that fails or hangs is abandoned. Each is counted and logged once, and no call
 * waits longer than the budget, so a store that never answers cannot leave a session's queue stuck.
 *
 * A synchronous store (the in-memory one) is answered synchronously, so a model call pays no promise or timer for it.
 */
export function createSessionIo<Session>(store: SessionStore<Session>, misses: ReturnType<typeof createMissCounter>, { timeoutMs, timers, isSession }: SessionIoOptions<Session>) {
  const readFailed = (error: unknown): undefined => {
    if (error instanceof TimedOut) misses.record('store', `The session store did not answer a read within ${timeoutMs} ms; the session restarts from the initial state.`);
    else misses.record('store', 'The session store failed to read a session; the session restarts from the initial state.', error);
    return undefined;
  };
  const writeFailed = (error: unknown): void => {
    if (error instanceof TimedOut) misses.record('store', `The session store did not answer a write within ${timeoutMs} ms; the write was abandoned.`);
    else misses.record('store', 'The session store failed to save a session.', error);
  };
  const checked = (value: unknown): Session | undefined => {
    if (value === undefined || value === null || isSession(value)) return value ?? undefined;
    misses.record('store', 'The session store gave back a value that is not a monitor session; it was discarded and the session restarts from the initial state.', value);
    return undefined;
  };

  return {
    load(sessionId: string): MaybePromise<Session | undefined> {
      try {
        const stored = within(store.get(sessionId), timeoutMs, timers);
        return stored instanceof Promise ? stored.then(checked, readFailed) : checked(stored);
      } catch (error) {
        return readFailed(error);
      }
    },

    save(sessionId: string, session: Session): MaybePromise<void> {
      try {
        const saved = within(store.set(sessionId, session), timeoutMs, timers);
        return saved instanceof Promise ? saved.then(() => undefined, writeFailed) : undefined;
      } catch (error) {
        return writeFailed(error);
      }
    },
  };
}
