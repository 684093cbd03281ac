import { createHash, randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { within } from '../../async/index.js';
import { systemTimers, type Timers } from '../../clock/index.js';
import { InvalidOptionError } from '../../errors/index.js';
import type { Logger } from '../../monitor/fail-open.js';
import { DEFAULT_SESSION_TTL_MS, type SessionStore } from '../session-store.js';
import { redactUrl } from './redact-url.js';
import { createRedisConversationPlacement, type RedisConversationPlacement } from './conversation-placement.js';

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
   * lets go after this, and its write is then dropped (counted), so it can never overwrite a newer state.
   * @default 5000
   */
  leaseMs?: number;
  /**
   * Longest wait for a session's lease held by another process, in milliseconds; past it the call runs without the
   * lease (fail-open, counted), since a call is never held up by Panoptes' own machinery for long.
   * @default 2000
   */
  lockWaitMs?: number;
  /** Receives the store's failures, once per cause. @default console */
  logger?: Logger;
  /** For the waits between lease attempts. @default systemTimers */
  timers?: Timers;
}

/** Why the store let a call through without its guarantees. */
export type RedisStoreMissCause = 'unavailable' | 'lock-timeout' | 'lease-lost';

/** A session store in Redis, shared by every process that points at the same server and prefix. */
export interface RedisSessionStore<Value> extends SessionStore<Value> {
  /**
   * Runs `task` holding the session's lease (renewed while it runs), so calls for one session run one at a time across
   * processes. The monitor calls it around each of its calls. It resolves once the release, carrying the task's
   * write, is sent: the lease keeps other processes out until Redis has it (see `settled`). Never rejects for Redis'
   * sake: without Redis the task runs anyway.
   */
  exclusive<T>(sessionId: string, task: () => T | Promise<T>): Promise<T>;
  /** False while Redis does not answer (the store then fails open: reads find nothing, writes are dropped). */
  readonly healthy: boolean;
  /** Resolves once the store's own client has connected (at once for a client passed in); rejects past `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
  /** Calls the store let through without its guarantees, by cause. */
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
}

export const DEFAULT_REDIS_KEY_PREFIX = 'panoptes:';
export const DEFAULT_LEASE_MS = 5000;
export const DEFAULT_LOCK_WAIT_MS = 2000;

/** A Lua script sent by its SHA1 (EVALSHA), so each call carries 40 bytes rather than the script. */
interface Script {
  source: string;
  sha: string;
}
const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') });

/**
 * Takes the lease and reads the session in one round trip: KEYS = [lease, session], ARGV = [token, leaseMs, ttlMs].
 * Returns [1, value or nil] when taken, [0] when another process holds it.
 */
const ACQUIRE_AND_READ = script(`if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local value = redis.call('GET', KEYS[2])
  if value then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
  return {1, value}
end
return {0}`);
/**
 * Writes (when ARGV[2] is not empty) and lets go of the lease, only while this process still holds it: KEYS = [lease,
 * session], ARGV = [token, value, ttlMs]. Returns 1, or 0 when the lease was lost (nothing written).
 */
const WRITE_AND_RELEASE = script(`if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
redis.call('DEL', KEYS[1])
return 1`);
/** Extends the lease while this process still holds it: KEYS = [lease], ARGV = [token, leaseMs]. Returns 1, or 0 when lost. */
const RENEW = script(`if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`);

/** A lease this process holds on a session, with what it read when taking it and what the task wrote. */
interface Held {
  token: string;
  /** The session's JSON as read with the lease (null: none), until the task's first read takes it. */
  prefetched?: string | null;
  /** The last value the task wrote, sent with the release. */
  write?: string;
  /** The timer of the next renewal. */
  renewal?: unknown;
}

/**
 * Creates a session store in Redis (DESIGN.md section 17), for a monitor's sessions: `createMonitor({ workflow,
 * store })`. Several processes (proxy instances behind a load balancer, in-process monitors in several Node
 * processes) then share each session: its state is one JSON value with a TTL, and `exclusive` takes a per-session
 * lease (`SET NX PX` with a random token, released by a compare-and-delete script), so one conversation's calls run
 * one at a time across processes and two instances handling alternate calls produce the trace one instance would.
 *
 * Fail-open (DESIGN.md section 12): when Redis is unreachable a read finds no session, a write is dropped, and
 * `exclusive` runs the task without the lease; each is counted and logged once, `healthy` turns false, and the client
 * reconnects on its own, so sessions written after Redis is back are kept. Commands fail at once while disconnected
 * (no offline queue), so a call never waits for a dead server.
 * @throws {InvalidOptionError} when neither `url` nor `client` is given, `url` is not a redis URL, or a number is out of range.
 * @example
 * const store = createRedisSessionStore<MonitorSession>({ url: 'redis://127.0.0.1:6379' });
 * await store.ready();
 * const monitor = createMonitor({ workflow, store });
 */
export function createRedisSessionStore<Value>({
  url,
  client: given,
  keyPrefix = DEFAULT_REDIS_KEY_PREFIX,
  ttlMs = DEFAULT_SESSION_TTL_MS,
  leaseMs = DEFAULT_LEASE_MS,
  lockWaitMs = DEFAULT_LOCK_WAIT_MS,
  logger = console,
  timers = systemTimers,
}: RedisSessionStoreOptions): RedisSessionStore<Value> {
  if ((url === undefined) === (given === undefined)) throw new InvalidOptionError({ parameter: 'url', value: url, fix: 'Pass either `url` (redis://host:port) or a connected `client`, not both and not neither.' });
  if (url !== undefined && !/^rediss?:\/\/[^\s]+$/.test(url)) throw new InvalidOptionError({ parameter: 'url', value: url, fix: 'Pass a Redis URL such as redis://127.0.0.1:6379 (rediss:// for TLS).' });
  for (const [parameter, value] of [['ttlMs', ttlMs], ['leaseMs', leaseMs], ['lockWaitMs', lockWaitMs]] as const) {
    if (!(Number.isInteger(value) && value > 0)) throw new InvalidOptionError({ parameter, value, fix: 'Pass a positive whole number of milliseconds.' });
  }

  const counts: Partial<Record<RedisStoreMissCause, number>> = {};
  const logged = new Set<string>();
  const miss = (cause: RedisStoreMissCause, message: string) => {
    counts[cause] = (counts[cause] ?? 0) + 1;
    if (logged.has(cause)) return;
    logged.add(cause);
    try {
      logger.warn(`[panoptes redis] ${message}`);
    } catch {
      // a logger that throws changes nothing
    }
  };

  let failing = false;
  let connecting: Promise<unknown> = Promise.resolve();
  let own: ReturnType<typeof createClient> | undefined;
  if (url !== undefined) {
    own = createClient({
      url,
      disableOfflineQueue: true,
      // node-redis bounds each command with an AbortSignal.timeout of its own, which costs more than the rest of the
      // command on this path; `command` below bounds it with a plain timer instead.
      commandOptions: { timeout: 0 },
      socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000) },
    });
    own.on('error', (error: Error) => {
      failing = true;
      miss('unavailable', `Redis is unreachable (${error.message}); sessions are not shared until it is back (the client reconnects on its own).`);
    });
    own.on('ready', () => {
      failing = false;
    });
    connecting = own.connect();
    connecting.catch(() => {}); // reported through 'error'; the client keeps trying
  }
  const client: RedisCommandClient = given ?? (own as unknown as RedisCommandClient);

  const sessionKey = (sessionId: string) => `${keyPrefix}session:${sessionId}`;
  const leaseKey = (sessionId: string) => `${keyPrefix}lease:${sessionId}`;
  /** The leases this process holds right now, by session. */
  const held = new Map<string, Held>();

  /** A command, rejected past `leaseMs` (a Redis that stopped answering holds no call longer than that). */
  const command = async (args: string[]): Promise<unknown> => {
    try {
      const reply = await within(client.sendCommand(args), leaseMs, timers);
      failing = false;
      return reply;
    } catch (error) {
      failing = true;
      throw error;
    }
  };

  /** Runs a script by its SHA; once after a restart of Redis (which forgets scripts), by its source, which loads it. */
  const run = async ({ source, sha }: Script, keys: string[], args: string[]): Promise<unknown> => {
    try {
      return await command(['EVALSHA', sha, String(keys.length), ...keys, ...args]);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return command(['EVAL', source, String(keys.length), ...keys, ...args]);
    }
  };

  const sleep = (ms: number) => new Promise<void>((resolve) => timers.setTimeout(resolve, ms));

  /** Takes the lease (reading the session with it), waiting for another holder up to `lockWaitMs`; or why not. */
  async function acquire(sessionId: string): Promise<Held | RedisStoreMissCause> {
    const token = randomUUID();
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      let reply: unknown;
      try {
        reply = await run(ACQUIRE_AND_READ, [leaseKey(sessionId), sessionKey(sessionId)], [token, String(leaseMs), String(ttlMs)]);
      } catch {
        return 'unavailable';
      }
      if (Array.isArray(reply) && reply[0] === 1) return { token, prefetched: typeof reply[1] === 'string' ? reply[1] : null };
      if (waited >= lockWaitMs) return 'lock-timeout';
      const delay = Math.min(1 + attempt, 20, lockWaitMs - waited);
      await sleep(delay);
      waited += delay;
    }
  }

  /**
   * Renews the lease every third of `leaseMs` while the call runs, so a call slower than the lease keeps its session.
   * A process that stalls cannot renew: its lease runs out and its write is refused. A renewal that finds the lease
   * taken stops; the release then reports the lost write.
   */
  function keepRenewing(sessionId: string, lease: Held): void {
    lease.renewal = timers.setTimeout(() => {
      if (held.get(sessionId) !== lease) return;
      run(RENEW, [leaseKey(sessionId)], [lease.token, String(leaseMs)]).then(
        (renewed) => {
          if (renewed === 1 && held.get(sessionId) === lease) keepRenewing(sessionId, lease);
        },
        () => {
          if (held.get(sessionId) === lease) keepRenewing(sessionId, lease); // Redis may be back before the lease ends
        },
      );
    }, Math.max(1, Math.floor(leaseMs / 3)));
  }

  /** Releases held in flight: the caller does not wait for them, `close` does. */
  const releasing = new Set<Promise<void>>();

  /**
   * Writes the task's last value and lets go of the lease, in one round trip that the call does not wait for: the
   * lease, not the caller's wait, is what keeps another process out until the write is in, and this process's next
   * command for the session goes after it on the same connection. A lost lease or a dead Redis is counted on the reply.
   */
  function release(sessionId: string, lease: Held): void {
    const sent = run(WRITE_AND_RELEASE, [leaseKey(sessionId), sessionKey(sessionId)], [lease.token, lease.write ?? '', String(ttlMs)]).then(
      (released) => {
        if (released !== 1 && lease.write !== undefined) {
          miss('lease-lost', `A call for one session held its lease past ${leaseMs} ms without renewing it (a stalled process) and another process took the session over; its write was dropped so it cannot overwrite a newer state.`);
        }
      },
      () => {
        // Unreleased, the lease expires after leaseMs; the write is lost (counted): Redis went away mid-call.
        if (lease.write !== undefined) miss('unavailable', 'Redis is unreachable; a session write was dropped (sessions are not shared until Redis is back).');
      },
    );
    releasing.add(sent);
    void sent.then(() => releasing.delete(sent));
  }

  return {
    get healthy() {
      return !failing && client.isReady !== false;
    },

    async get(sessionId) {
      const lease = held.get(sessionId);
      let text: unknown;
      if (lease?.prefetched !== undefined) {
        text = lease.prefetched; // read with the lease, one round trip ago
        delete lease.prefetched;
      } else {
        // GETEX (Redis 6.2+): reading touches the session, as in the memory store.
        text = await command(['GETEX', sessionKey(sessionId), 'PX', String(ttlMs)]);
      }
      return typeof text === 'string' ? (JSON.parse(text) as Value) : undefined;
    },

    async set(sessionId, value) {
      const text = JSON.stringify(value);
      const lease = held.get(sessionId);
      if (lease) {
        // Sent with the release, in the same round trip, and only if the lease is still this process's.
        lease.write = text;
        delete lease.prefetched;
        return;
      }
      await command(['SET', sessionKey(sessionId), text, 'PX', String(ttlMs)]);
    },

    async delete(sessionId) {
      await command(['DEL', sessionKey(sessionId)]);
    },

    async exclusive(sessionId, task) {
      const lease = await acquire(sessionId);
      if (typeof lease === 'string') {
        if (lease === 'unavailable') miss('unavailable', 'Redis is unreachable; a call ran without its session lease (sessions are not shared until Redis is back).');
        else miss('lock-timeout', `Another process held a session's lease for over ${lockWaitMs} ms; the call ran without it.`);
        return task();
      }
      held.set(sessionId, lease);
      keepRenewing(sessionId, lease);
      try {
        return await task();
      } finally {
        held.delete(sessionId);
        timers.clearTimeout(lease.renewal);
        release(sessionId, lease);
      }
    },

    async ready(timeoutMs = 5000) {
      if (!own) return;
      if (own.isReady) return;
      let timer: unknown;
      const timeout = new Promise<never>((_, reject) => {
        timer = timers.setTimeout(() => reject(new Error(`Redis at ${redactUrl(url!)} did not accept a connection within ${timeoutMs} ms.`)), timeoutMs);
      });
      const readyEvent = new Promise<void>((resolve) => own!.once('ready', () => resolve()));
      try {
        await Promise.race([readyEvent, timeout]);
      } finally {
        timers.clearTimeout(timer);
      }
    },

    misses: () => ({ ...counts }),

    conversations: () => createRedisConversationPlacement({ client, keyPrefix, ttlMs, timeoutMs: leaseMs, logger, timers }),

    async settled() {
      while (releasing.size > 0) await Promise.all(releasing);
    },

    async close() {
      // Bounded: a Redis that stopped answering lets the leases run out on their own after leaseMs.
      let timer: unknown;
      await Promise.race([this.settled(), new Promise<void>((resolve) => (timer = timers.setTimeout(resolve, leaseMs)))]);
      timers.clearTimeout(timer);
      if (!own) return;
      try {
        own.destroy();
      } catch {
        // already closed
      }
    },
  };
}
