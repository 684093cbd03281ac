import type { Clock } from '../clock/index.js';
import { systemClock } from '../clock/index.js';
import { InvalidOptionError } from '../errors/index.js';
import type { MonitorSession } from '../monitor/types.js';

/**
 * Where sessions live between calls. Values are plain JSON, so an implementation may serialise them (Redis, a
 * database) and several processes can share sessions. Methods may be sync or async.
 */
export interface SessionStore<Value> {
  get(sessionId: string): Value | undefined | Promise<Value | undefined>;
  set(sessionId: string, value: Value): void | Promise<void>;
  delete(sessionId: string): void | Promise<void>;
  /**
   * Runs one monitor call for a session while no other process runs one for it (a store shared between processes,
   * such as the Redis store, takes a per-session lease). The monitor calls it around each call's read, work and write;
   * a store used by one process leaves it out. It must not reject for its own sake: when it cannot serialise, it runs
   * the task anyway.
   */
  exclusive?<T>(sessionId: string, task: () => T | Promise<T>): Promise<T>;
}

export interface MemorySessionStoreOptions {
  /**
   * A session untouched for this long is forgotten, in milliseconds.
   * @default 3_600_000 (1 hour)
   */
  ttlMs?: number;
  /**
   * Most sessions kept; past it the least recently used is forgotten, so memory stays bounded.
   * @default 10_000
   */
  maxSessions?: number;
  /** @default systemClock */
  clock?: Clock;
}

/** The in-memory store, with the count of sessions it holds. */
export interface MemorySessionStore<Value> extends SessionStore<Value> {
  readonly size: number;
}

export const DEFAULT_SESSION_TTL_MS = 3_600_000;
export const DEFAULT_MAX_SESSIONS = 10_000;
const SWEEP_INTERVAL_MS = 1000;

/**
 * Keeps sessions in this process, bounded by age and count: the default store of a monitor. Its values are a
 * monitor's sessions unless a type says otherwise, so `const store = createMemorySessionStore()` fits `createMonitor`.
 * @throws {InvalidOptionError} when `ttlMs` or `maxSessions` is not positive.
 * @example
 * const store = createMemorySessionStore<MonitorSession>({ ttlMs: 15 * 60_000, maxSessions: 1000 });
 */
export function createMemorySessionStore<Value = MonitorSession>({
  ttlMs = DEFAULT_SESSION_TTL_MS,
  maxSessions = DEFAULT_MAX_SESSIONS,
  clock = systemClock,
}: MemorySessionStoreOptions = {}): MemorySessionStore<Value> {
  if (!(ttlMs > 0)) throw new InvalidOptionError({ parameter: 'ttlMs', value: ttlMs, fix: 'Pass a positive number of milliseconds; the default is one hour.' });
  if (!Number.isInteger(maxSessions) || maxSessions <= 0) {
    throw new InvalidOptionError({ parameter: 'maxSessions', value: maxSessions, fix: 'Pass a positive whole number; the default is 10000.' });
  }
  // Map keeps insertion order: re-inserting on every touch makes the first key the least recently used.
  const entries = new Map<string, { value: Value; touchedAt: number }>();
  // The session touched last is already at the end of the map: a model call reads its session and then writes it,
  // and the write need not move it again.
  let newest: string | undefined;
  const evictExpired = (now: number) => {
    for (const [id, entry] of entries) {
      if (now - entry.touchedAt < ttlMs) break; // later entries were touched later
      entries.delete(id);
    }
  };
  // Writes sweep expired sessions at most once a second (reads check their own entry's age): a model call's write
  // then costs no walk over the map.
  let nextSweepAt = -Infinity;
  const sweep = (now: number) => {
    if (now < nextSweepAt) return;
    nextSweepAt = now + Math.min(SWEEP_INTERVAL_MS, ttlMs);
    evictExpired(now);
  };
  const touch = (sessionId: string, entry: { value: Value; touchedAt: number }, now: number) => {
    entry.touchedAt = now;
    if (sessionId === newest) return;
    entries.delete(sessionId);
    entries.set(sessionId, entry);
    newest = sessionId;
  };
  return {
    get size() {
      evictExpired(clock.now());
      return entries.size;
    },
    get(sessionId) {
      const entry = entries.get(sessionId);
      if (!entry) return undefined;
      // Only this entry's age matters to a read; expired others are dropped by the next write.
      const now = clock.now();
      if (now - entry.touchedAt >= ttlMs) {
        evictExpired(now);
        return undefined;
      }
      touch(sessionId, entry, now);
      return entry.value;
    },
    set(sessionId, value) {
      const now = clock.now();
      sweep(now);
      const entry = entries.get(sessionId);
      if (entry) {
        entry.value = value;
        touch(sessionId, entry, now);
        return;
      }
      entries.set(sessionId, { value, touchedAt: now });
      newest = sessionId;
      if (entries.size > maxSessions) entries.delete(entries.keys().next().value!);
    },
    delete(sessionId) {
      entries.delete(sessionId);
    },
  };
}
