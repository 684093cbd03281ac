import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { TimedOut, within } from '../../async/index.js';
import { systemTimers } from '../../clock/index.js';
import { InvalidOptionError } from '../../errors/index.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_TTL_MS } from '../session-store.js';
import { createRedisConversationPlacement } from './conversation-placement.js';
import { createRedisResponseRecords } from './response-records.js';
import { redactUrl } from './redact-url.js';
import { ACQUIRE_AND_READ, decode, encode, LEASE_LOST, RENEW, runScript, sessionKeyOf, STALE, WRITE_AND_RELEASE, WRITTEN, type Script, type Versioned } from './scripts.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_LOCK_WAIT_MS,
  DEFAULT_REDIS_KEY_PREFIX,
  type RedisCommandClient,
  type RedisSessionStore,
  type RedisSessionStoreOptions,
  type RedisStoreMissCause,
} from './types.js';

/** One `exclusive` call: its lease, if it has one, and what it read and wrote. */
interface Call {
  /** The lease's token; none when the call runs without the lease. */
  token?: string;
  /** The session as the call read it (with the lease, or by its first `get`): its write is based on this version. */
  read?: Versioned;
  /** The task's last write (JSON), sent when the call ends. */
  write?: string;
  /** Redis did not answer the call in time: it neither reads nor writes the session (see `commandTimeoutMs`). */
  cutOff?: true;
  /** The call returned: no more renewals. */
  ended?: true;
  /** The timer of the next renewal. */
  renewal?: unknown;
}

/**
 * Creates a session store in Redis, for a monitor's sessions: `createMonitor({ workflow,
 * store })`. Several processes (proxy instances behind a load balancer, in-process monitors in several Node
 * processes) then share each session: its state is one JSON value with a version and a TTL, and `exclusive` takes a
 * per-session lease (`SET NX PX` with a random token, released by a compare-and-delete script), so one conversation's
 * calls run one at a time across processes and two instances handling alternate calls produce the trace one instance
 * would. Every write is a compare-and-set on the version its call read (src/store/redis/scripts.ts), lease or not.
 *
 * Fail-open: when Redis is unreachable or does not answer within `commandTimeoutMs`,
 * `exclusive` runs the task without its session (its reads reject, its writes are dropped, never sent late); each is
 * counted and logged once, `healthy` turns false, and the client reconnects on its own, so sessions written after
 * Redis is back are kept. Commands fail at once while disconnected (no offline queue), so a call never waits for a
 * dead server, and for a stopped one at most `commandTimeoutMs`.
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
  commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
  logger = console,
  timers = systemTimers,
}: RedisSessionStoreOptions): RedisSessionStore<Value> {
  if ((url === undefined) === (given === undefined)) throw new InvalidOptionError({ parameter: 'url', value: url, fix: 'Pass either `url` (redis://host:port) or a connected `client`, not both and not neither.' });
  if (url !== undefined && !/^rediss?:\/\/[^\s]+$/.test(url)) throw new InvalidOptionError({ parameter: 'url', value: url, fix: 'Pass a Redis URL such as redis://127.0.0.1:6379 (rediss:// for TLS).' });
  for (const [parameter, value] of [['ttlMs', ttlMs], ['leaseMs', leaseMs], ['lockWaitMs', lockWaitMs], ['commandTimeoutMs', commandTimeoutMs]] as const) {
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

  const sessionKey = (sessionId: string) => sessionKeyOf(keyPrefix, sessionId);
  const leaseKey = (sessionId: string) => `${keyPrefix}lease:${sessionId}`;
  /** The calls running in this process, by session. */
  const calls = new Map<string, Call>();
  /** Versions read or written outside a call, by session (the most recent ones), for the next write outside a call. */
  const seen = new Map<string, number>();
  const remember = (sessionId: string, version: number) => {
    seen.delete(sessionId);
    seen.set(sessionId, version);
    if (seen.size > DEFAULT_MAX_SESSIONS) seen.delete(seen.keys().next().value!);
  };

  /**
   * Commands that ran out of time and are not answered yet. Redis answers a connection's commands in order, so while
   * one is outstanding nothing sent after it can be answered sooner: a call then fails open at once, sending nothing.
   */
  let overdue = 0;
  const notAnswering = () => new Error(`Redis has not answered a command for over ${commandTimeoutMs} ms; nothing was sent (fail-open).`);

  /** A command, rejected past `timeoutMs` (it may still run once Redis goes on: the bytes are in the socket). */
  const command = async (args: string[], timeoutMs: number): Promise<unknown> => {
    let sent: Promise<unknown> | undefined;
    try {
      sent = client.sendCommand(args);
      const reply = await within(sent, timeoutMs, timers);
      failing = false;
      return reply;
    } catch (error) {
      failing = true;
      if (error instanceof TimedOut) {
        overdue++;
        sent!.then(
          () => {
            overdue--;
            failing = false; // it answers again
          },
          () => void overdue--,
        );
      }
      throw error;
    }
  };

  /** Runs a script, each command bounded by `timeoutMs`. */
  const run = (script: Script, keys: string[], args: string[], timeoutMs: number): Promise<unknown> => runScript((command_) => command(command_, timeoutMs), script, keys, args);

  /**
   * Sends a write (if any) based on `basedOn`, with the release of `token` (if any): KEYS and ARGV of
   * WRITE_AND_RELEASE. Bounded by `timeoutMs`.
   */
  const writeAndRelease = (sessionId: string, token: string, basedOn: number, text: string | undefined, timeoutMs: number) =>
    run(WRITE_AND_RELEASE, [leaseKey(sessionId), sessionKey(sessionId)], [token, String(basedOn), text === undefined ? '' : encode(basedOn, text), String(ttlMs)], timeoutMs);

  /** Counts a write Redis refused; true when it was written. */
  const written = (reply: unknown): boolean => {
    if (reply === LEASE_LOST) miss('lease-lost', `A call for one session held its lease past ${leaseMs} ms without renewing it (a stalled process, or a stopped Redis) and lost it; its write was dropped so it cannot overwrite a newer state.`);
    else if (reply === STALE) miss('stale-write', 'A session write was based on an older version of the session (another process wrote it since, or the write came late); it was dropped so it cannot overwrite the newer session.');
    return reply === WRITTEN;
  };

  const ignore = () => undefined;
  const sleep = (ms: number) => new Promise<void>((resolve) => timers.setTimeout(resolve, ms));

  /** A call that runs without Redis: counted, and it neither reads nor writes the session. */
  const cutOff = (): Call => {
    miss('unavailable', `Redis is unreachable or did not answer within ${commandTimeoutMs} ms; a call ran without its session, and nothing it wrote was stored (sessions are not shared until Redis is back).`);
    return { cutOff: true };
  };

  /** Takes the lease (reading the session with it), waiting for another holder up to `lockWaitMs`; or runs without it. */
  async function acquire(sessionId: string): Promise<Call> {
    if (overdue > 0) return cutOff();
    const token = randomUUID();
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      let reply: unknown;
      try {
        reply = await run(ACQUIRE_AND_READ, [leaseKey(sessionId), sessionKey(sessionId)], [token, String(leaseMs), String(ttlMs)], commandTimeoutMs);
      } catch {
        // Unanswered, the attempt may still run when Redis goes on and take the lease: its release, sent right behind
        // it on the same connection, lets go of it at once rather than after leaseMs, so the next call is not held up.
        settle(writeAndRelease(sessionId, token, 0, undefined, leaseMs).then(ignore, ignore));
        return cutOff();
      }
      if (Array.isArray(reply) && reply[0] === 1) return { token, read: decode(reply[1]) };
      if (waited >= lockWaitMs) {
        miss('lock-timeout', `Another process held a session's lease for over ${lockWaitMs} ms; the call ran without it (its write lands only if the session did not change meanwhile).`);
        return {};
      }
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
  function keepRenewing(sessionId: string, call: Call): void {
    call.renewal = timers.setTimeout(() => {
      if (call.ended) return;
      run(RENEW, [leaseKey(sessionId)], [call.token!, String(leaseMs)], leaseMs).then(
        (renewed) => {
          if (renewed === 1 && !call.ended) keepRenewing(sessionId, call);
        },
        () => {
          if (!call.ended) keepRenewing(sessionId, call); // Redis may be back before the lease ends
        },
      );
    }, Math.max(1, Math.floor(leaseMs / 3)));
  }

  /** Writes and releases in flight: the caller does not wait for them, `settled` and `close` do. */
  const releasing = new Set<Promise<void>>();
  const settle = (sent: Promise<void>) => {
    releasing.add(sent);
    void sent.then(() => releasing.delete(sent));
  };

  /**
   * Sends the call's write, based on the version it read, with the release of its lease, in one round trip that the
   * call does not wait for: the lease, not the caller's wait, is what keeps another process out until the write is in,
   * and this process's next command for the session goes after it on the same connection. A lost lease, a stale write
   * or a dead Redis is counted on the reply. A call cut off from Redis sends no write (its `set` rejected).
   */
  function end(sessionId: string, call: Call): void {
    const write = call.cutOff ? undefined : call.write;
    if (call.token === undefined && write === undefined) return;
    const sent = writeAndRelease(sessionId, call.token ?? '', call.read?.version ?? 0, write, leaseMs).then(
      (reply) => {
        if (write !== undefined) written(reply);
      },
      () => {
        // Unreleased, the lease expires after leaseMs. The write lands later only if the session is still as read.
        if (write !== undefined) miss('unavailable', `Redis did not answer a session write within ${leaseMs} ms; it lands later only if the session has not changed since it was read.`);
      },
    );
    settle(sent);
  }

  const parse = (text: string | null): Value | undefined => (text === null ? undefined : (JSON.parse(text) as Value));

  return {
    get healthy() {
      return !failing && overdue === 0 && client.isReady !== false;
    },

    async get(sessionId) {
      const call = calls.get(sessionId);
      if (call?.cutOff) throw new Error('Redis did not answer this call in time; the session was not read, and nothing the call writes is stored.');
      if (call?.write !== undefined) return parse(call.write);
      if (call?.read) return parse(call.read.text); // read with the lease, one round trip ago
      let read: Versioned;
      try {
        if (overdue > 0) throw notAnswering();
        // GETEX (Redis 6.2+): reading touches the session, as in the memory store.
        read = decode(await command(['GETEX', sessionKey(sessionId), 'PX', String(ttlMs)], commandTimeoutMs));
      } catch (error) {
        if (call) call.cutOff = true; // it cannot know what its write would replace
        throw error;
      }
      if (call) call.read = read;
      else remember(sessionId, read.version);
      return parse(read.text);
    },

    async set(sessionId, value) {
      const text = JSON.stringify(value);
      const call = calls.get(sessionId);
      if (call?.cutOff) throw new Error('Redis did not answer this call in time; its session write was dropped so that it cannot land over a newer session later.');
      if (call) {
        // Sent when the call ends, with the release, in the same round trip.
        call.write = text;
        return;
      }
      if (overdue > 0) throw notAnswering();
      const basedOn = seen.get(sessionId) ?? 0;
      if (written(await writeAndRelease(sessionId, '', basedOn, text, commandTimeoutMs))) remember(sessionId, basedOn + 1);
    },

    async delete(sessionId) {
      if (overdue > 0) throw notAnswering();
      seen.delete(sessionId);
      const call = calls.get(sessionId);
      if (call) {
        call.read = { version: 0, text: null };
        delete call.write;
      }
      await command(['DEL', sessionKey(sessionId)], commandTimeoutMs);
    },

    async exclusive(sessionId, task) {
      const call = await acquire(sessionId);
      // One call per session in this process at a time (the monitor queues them); one that overlaps it is not
      // registered, so its reads and writes go as outside a call, each still conditional.
      const registered = !calls.has(sessionId);
      if (registered) calls.set(sessionId, call);
      if (call.token !== undefined) keepRenewing(sessionId, call);
      try {
        return await task();
      } finally {
        call.ended = true;
        if (registered) calls.delete(sessionId);
        timers.clearTimeout(call.renewal);
        end(sessionId, call);
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

    // Placement's commands go through the store's own, so a stopped Redis bounds them the same way.
    conversations: () => createRedisConversationPlacement({ client: { sendCommand: (args) => command(args, commandTimeoutMs) }, keyPrefix, ttlMs, timeoutMs: commandTimeoutMs, logger, timers }),
    responses: () => createRedisResponseRecords({ client: { sendCommand: (args) => command(args, commandTimeoutMs) }, keyPrefix, ttlMs, timeoutMs: commandTimeoutMs, logger, timers }),

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
