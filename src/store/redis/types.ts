/**
 * The options and the interface of the Redis session store (redis-session-store.ts), and its defaults.
 * @module
 */
import type { RedisConversationPlacement } from './conversation-placement.js';
import type { RedisResponseRecords } from './response-records.js';
import type { Timers } from '../../clock/index.js';
import type { Logger } from '../../monitor/fail-open.js';
import type { SessionStore } from '../session-store.js';

/**
 * The few commands the store sends. Any node-redis client (v4 to v6, a cluster's node client) has `sendCommand`; the
 * store speaks raw commands so it works with whichever the application already holds.
 */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
  /** node-redis: true while connected. Read for `healthy`. */
  readonly isReady?: boolean;
}

/** Options of {@link createRedisSessionStore}. Give `url` (the store makes and owns a client) or `client`. */
export interface RedisSessionStoreOptions {
  /** `redis://host:port/db` (or `rediss://`): the store connects with the official `redis` client and reconnects on its own. */
  url?: string;
  /** A connected client of the application's own; the store never closes it. */
  client?: RedisCommandClient;
  /** Prefix of every key. @default 'panoptes:' */
  keyPrefix?: string;
  /** A session untouched (read or written) for this long expires, in milliseconds. @default 3_600_000 (1 hour) */
  ttlMs?: number;
  /**
   * How long a session's lease lasts unless renewed, in milliseconds. A live holder renews it every third of this while
   * its call runs (a slow guard or embedder keeps the session); a holder that dies, or stalls so that it cannot renew,
   * lets go after this, and its write is then dropped (counted), so it can never overwrite a newer state. Also the
   * bound of the commands no call waits for (renewals, releases), after which they are counted as unanswered.
   * @default 5000
   */
  leaseMs?: number;
  /**
   * Longest wait for a session's lease held by another process, in milliseconds; past it the call runs without the
   * lease (fail-open, counted), since a call is never held up by Panoptes' own machinery for long. Its write then
   * lands only if nobody wrote the session since it read it.
   * @default 2000
   */
  lockWaitMs?: number;
  /**
   * Longest wait for Redis to answer a command a call waits for (taking the lease, a read or write outside
   * `exclusive`), in milliseconds. Past it the call runs without its session (fail-open, counted) and sends nothing
   * more: its write is dropped, never sent late, so it cannot land over a newer session once Redis goes on. Until
   * Redis answers that late command, later calls do not wait at all: Redis answers a connection's commands in order,
   * so nothing sent behind it could be answered sooner. So a Redis that stops answering costs one call this long and
   * the others nothing, however long it stays stopped.
   * @default 250
   */
  commandTimeoutMs?: number;
  /** Receives the store's failures, once per cause. @default console */
  logger?: Logger;
  /** For the waits between lease attempts. @default systemTimers */
  timers?: Timers;
}

/** Why the store let a call through without its guarantees, or dropped a write. */
export type RedisStoreMissCause = 'unavailable' | 'lock-timeout' | 'lease-lost' | 'stale-write';

/**
 * A session store in Redis, shared by every process that points at the same server and prefix. Every write is
 * conditional: it lands only if the session is still at the version it was based on (see `get` and `set`).
 */
export interface RedisSessionStore<Value> extends SessionStore<Value> {
  /**
   * Runs `task` holding the session's lease (renewed while it runs), so calls for one session run one at a time across
   * processes. The monitor calls it around each of its calls; inside it `get` gives the session read with the lease
   * and `set` keeps the value, sent with the release. It resolves once the release, carrying the task's write, is
   * sent: the lease keeps other processes out until Redis has it (see `settled`). Never rejects for Redis' sake:
   * without Redis the task runs anyway, but then its `get` and `set` reject at once (the monitor counts them and
   * starts the session afresh) and nothing it writes is stored. Calls for one session in one process are expected one
   * at a time (the monitor queues them); one that overlaps another reads and writes as outside a call.
   */
  exclusive<T>(sessionId: string, task: () => T | Promise<T>): Promise<T>;
  /**
   * The session. Outside `exclusive`, the store remembers the version read (for the most recent 10 000 sessions), and
   * the next `set` of that session outside a call is based on it.
   */
  get(sessionId: string): Promise<Value | undefined>;
  /**
   * Writes the session if nobody wrote it since this call (or, outside `exclusive`, this store) read it: a write based
   * on an older version is dropped and counted (`stale-write`), so it can never replace a newer session. A session
   * never read is written only if there is none.
   */
  set(sessionId: string, value: Value): Promise<void>;
  /** False while Redis does not answer (the store then fails open: reads find nothing, writes are dropped). */
  readonly healthy: boolean;
  /** Resolves once the store's own client has connected (at once for a client passed in); rejects past `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
  /** Calls the store let through without its guarantees, and writes it dropped, by cause. */
  misses(): Readonly<Partial<Record<RedisStoreMissCause, number>>>;
  /** Resolves once every release sent so far has been answered (their misses, if any, are counted by then). */
  settled(): Promise<void>;
  /** Waits for the releases in flight (up to `leaseMs`), then closes the client the store made (not one passed in). */
  close(): Promise<void>;
  /**
   * The registry that places calls naming no session by their conversation's history, in this Redis under this
   * store's prefix, so every process agrees where such a call belongs (the proxy uses it; see ConversationPlacement).
   */
  conversations(): RedisConversationPlacement;
  /**
   * The proxy's records of the Responses API's responses in this Redis under this store's prefix, so a request that
   * continues a response by `previous_response_id` finds its session at any instance.
   */
  responses(): RedisResponseRecords;
}

export const DEFAULT_REDIS_KEY_PREFIX = 'panoptes:';
export const DEFAULT_LEASE_MS = 5000;
export const DEFAULT_LOCK_WAIT_MS = 2000;
export const DEFAULT_COMMAND_TIMEOUT_MS = 250;
