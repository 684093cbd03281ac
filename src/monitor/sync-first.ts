import type { MaybePromise } from '../async/index.js';
import type { Monitor } from './types.js';

/**
 * The monitor's calls on a model call's path, answered as they complete: a plain value when the session is in memory
 * and nothing waits for an embedder or a store, a promise only when something does. `Monitor`'s own methods always
 * return promises, one contract for users; adapters (Panoptes' own, or one you write for another host) call these
 * instead, so a model call's path makes no promise of Panoptes' own when nothing waits.
 */
export interface SyncFirstMonitor {
  beforeModel(...args: Parameters<Monitor['beforeModel']>): MaybePromise<Awaited<ReturnType<Monitor['beforeModel']>>>;
  afterModel(...args: Parameters<Monitor['afterModel']>): MaybePromise<Awaited<ReturnType<Monitor['afterModel']>>>;
  beforeTool(...args: Parameters<Monitor['beforeTool']>): MaybePromise<Awaited<ReturnType<Monitor['beforeTool']>>>;
  watchText(...args: Parameters<Monitor['watchText']>): MaybePromise<Awaited<ReturnType<Monitor['watchText']>>>;
}

const registered = new WeakMap<Monitor, SyncFirstMonitor>();

/** Records the sync-first calls of a monitor `createMonitor` made. */
export function registerSyncFirst(monitor: Monitor, calls: SyncFirstMonitor): void {
  registered.set(monitor, calls);
}

/**
 * The sync-first calls of `monitor`; for a monitor `createMonitor` did not make (a wrapper, a test double), its own
 * methods, whose promises are answers too.
 * @example
 * const before = syncFirst(monitor).beforeModel(sessionId, { messages });
 * const result = isPromiseLike(before) ? await before : before;
 */
export function syncFirst(monitor: Monitor): SyncFirstMonitor {
  return registered.get(monitor) ?? monitor;
}
