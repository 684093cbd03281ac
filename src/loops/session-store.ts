import type { Clock } from '../clock/index.js';

/**
 * The detector's sessions, bounded by age and count: a session untouched for `ttlMs` is forgotten, and past
 * `maxSessions` the least recently used one is. A `Map` iterates in insertion order, so re-inserting on every touch
 * keeps the least recently used first and both evictions stop at the first entry that stays.
 *
 * Loop state is the detector's own (vectors, rings, an index) rather than the monitor's JSON snapshot: it is only
 * worth something while the session is running, and a restart costs at most one missed loop.
 * @internal
 */
export function createLoopSessionStore<State>({ ttlMs, maxSessions, clock, create }: { ttlMs: number; maxSessions: number; clock: Clock; create: () => State }) {
  const entries = new Map<string, { state: State; touchedAt: number }>();
  const evictExpired = (now: number) => {
    for (const [key, entry] of entries) {
      if (now - entry.touchedAt < ttlMs) break;
      entries.delete(key);
    }
  };
  const touch = (key: string, state: State, now: number) => {
    entries.delete(key);
    entries.set(key, { state, touchedAt: now });
  };
  return {
    /** The session's state, created when new; the session becomes the most recently used. */
    get(key: string): State {
      const now = clock.now();
      evictExpired(now);
      const state = entries.get(key)?.state ?? create();
      touch(key, state, now);
      if (entries.size > maxSessions) entries.delete(entries.keys().next().value!);
      return state;
    },
    /** The session's state if it is held, without creating it. */
    peek(key: string): State | undefined {
      evictExpired(clock.now());
      return entries.get(key)?.state;
    },
    /** Replaces the session's state (one read back from a shared store); it becomes the most recently used. */
    put(key: string, state: State): void {
      touch(key, state, clock.now());
      if (entries.size > maxSessions) entries.delete(entries.keys().next().value!);
    },
    delete(key: string): void {
      entries.delete(key);
    },
    get size(): number {
      evictExpired(clock.now());
      return entries.size;
    },
  };
}

/**
 * The store key of a session: the tenant and the session id, length-prefixed so no choice of the two can collide
 * with another (`a|b` + `c` and `a` + `b|c` differ).
 * @internal
 */
export function sessionKey(tenant: string, sessionId: string): string {
  return `${tenant.length}:${tenant}:${sessionId}`;
}
