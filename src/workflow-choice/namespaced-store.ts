import type { SessionStore } from '../store/index.js';

/** A store that may say when its writes have landed (the Redis store's `settled`). */
type Settling = { settled?: () => Promise<void> };

/**
 * A view of `store` whose keys all start with `namespace`: the sessions of one workflow among several in one store.
 * Reads, writes, deletes and the per-session lease (`exclusive`) go to the prefixed key; `settled` (the Redis store's)
 * is passed on, so a monitor closing over the view still waits for the store's writes.
 * @example
 * const refunds = namespacedStore(store, workflowNamespace('refunds'));
 * await refunds.get('s1'); // reads 'wf:refunds:s1'
 */
export function namespacedStore<Value>(store: SessionStore<Value> & Settling, namespace: string): SessionStore<Value> & Settling {
  const key = (sessionId: string) => namespace + sessionId;
  const view: SessionStore<Value> & Settling = {
    get: (sessionId) => store.get(key(sessionId)),
    set: (sessionId, value) => store.set(key(sessionId), value),
    delete: (sessionId) => store.delete(key(sessionId)),
  };
  // Only a store that has them: the monitor reads a store with `exclusive` as one shared between processes.
  if (typeof store.exclusive === 'function') view.exclusive = (sessionId, task) => store.exclusive!(key(sessionId), task);
  if (typeof store.settled === 'function') view.settled = () => store.settled!();
  return view;
}
