import type { SessionStore } from '../store/index.js';
import type { createMissCounter } from './fail-open.js';
import { isPromiseLike, type MaybePromise } from '../async/index.js';

/**
 * Reads and writes sessions through any store, failing open (DESIGN.md section 12): a read that fails gives no
 * session (it restarts from the initial state), a write that fails is skipped; both are counted and logged once.
 * A synchronous store (the in-memory one) is answered synchronously, so a model call pays no promise for it.
 */
export function createSessionIo<Session>(store: SessionStore<Session>, misses: ReturnType<typeof createMissCounter>) {
  const readFailed = (error: unknown): undefined => {
    misses.record('store', 'The session store failed to read a session; the session restarts from the initial state.', error);
    return undefined;
  };
  const writeFailed = (error: unknown): void => {
    misses.record('store', 'The session store failed to save a session.', error);
  };

  return {
    load(sessionId: string): MaybePromise<Session | undefined> {
      try {
        const stored = store.get(sessionId);
        return isPromiseLike(stored) ? Promise.resolve(stored).catch(readFailed) : stored;
      } catch (error) {
        return readFailed(error);
      }
    },

    save(sessionId: string, session: Session): MaybePromise<void> {
      try {
        const saved = store.set(sessionId, session);
        return isPromiseLike(saved) ? Promise.resolve(saved).then(() => undefined, writeFailed) : undefined;
      } catch (error) {
        return writeFailed(error);
      }
    },
  };
}
