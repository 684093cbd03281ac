import { InvalidOptionError } from '../errors/index.js';
import { createFactStore, type FactStore } from '../facts/index.js';
import type { Rulebase } from '../rules/index.js';
import { createMemorySessionStore, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_TTL_MS } from '../store/index.js';
import { createLifecycle, flushTelemetry } from '../lifecycle/index.js';
import { systemTimers } from '../clock/index.js';
import { createSentinel, SENTINEL_ASYNC_CALLS, SENTINEL_SYNC_CALLS, type Sentinel, type SentinelOptions } from './sentinel.js';
import type { PolicyToolNames } from './text.js';

/** Options of {@link createSentinelSessions}: a sentinel's options, with a fact store per conversation. */
export interface SentinelSessionsOptions extends Omit<SentinelOptions, 'facts'> {
  /**
   * The fact store of a conversation seen for the first time: seed who is logged in and today's date here.
   * @default an empty store on the sentinel's clock (or the system clock)
   */
  facts?: (sessionId: string) => FactStore;
  /** A conversation untouched for this long is forgotten, facts and all. @default 3_600_000 (1 hour) */
  ttlMs?: number;
  /** Most conversations kept; past it the least recently used is forgotten. @default 10_000 */
  maxSessions?: number;
}

/**
 * One sentinel per conversation, over one rulebase and one set of tools. What a conversation established (who the
 * user is, what they confirmed, which booking is meant) must never decide another conversation's calls, so an agent
 * that serves many conversations (a LangChain agent invoked with different `thread_id`s, a server route) takes this
 * instead of a single sentinel. The adapters accept either.
 */
export interface SentinelSessions {
  readonly kind: 'sentinel-sessions';
  readonly rulebase: Rulebase;
  readonly toolNames: PolicyToolNames;
  /** The conversation's sentinel, created with a fresh fact store on first use. */
  forSession(sessionId: string): Sentinel;
  /** Forgets a conversation and its facts. */
  delete(sessionId: string): void;
  /** Starts a conversation's facts afresh: its next call gets a new sentinel with a new store from `facts`. */
  resetSession(sessionId: string): void;
  /**
   * Waits for the checks in flight in every conversation, flushes the registered OpenTelemetry providers, then
   * refuses every later call (of this object and of each sentinel it gave out) with a `ClosedError`. Idempotent.
   */
  close(): Promise<void>;
  /** Whether a tool has a guard (the same in every conversation). */
  isGuarded(tool: string): boolean;
}

/** A single sentinel (one conversation) or one per conversation: what the adapters take. */
export type SentinelSource = Sentinel | SentinelSessions;

/**
 * Creates per-conversation sentinels. Validates the options now, with a throwaway store, so a missing data tool
 * handler fails at startup.
 * @throws InvalidOptionError for the same options `createSentinel` refuses, a `facts` that is not a function, or a
 * bad `ttlMs`/`maxSessions`.
 * @example
 * const sentinels = createSentinelSessions({
 *   rulebase,
 *   tools: airlineTools,
 *   facts: (sessionId) => createFactStore({ seed: { context: { current_user: userOf(sessionId) } } }),
 * });
 * const agent = createAgent({ model, tools, middleware: [panoptesMiddleware({ sentinel: sentinels })] });
 */
export function createSentinelSessions({ facts, ttlMs = DEFAULT_SESSION_TTL_MS, maxSessions = DEFAULT_MAX_SESSIONS, ...options }: SentinelSessionsOptions): SentinelSessions {
  if (facts !== undefined && typeof facts !== 'function') {
    throw new InvalidOptionError({ parameter: 'facts', value: facts, fix: 'Pass a function that returns a new store for a session id: (sessionId) => createFactStore({ seed }).' });
  }
  const newStore = facts ?? (() => createFactStore(options.clock ? { clock: options.clock } : {}));
  const probe = createSentinel({ ...options, facts: createFactStore(options.clock ? { clock: options.clock } : {}) });
  const sentinels = createMemorySessionStore<Sentinel>({ ttlMs, maxSessions, ...(options.clock ? { clock: options.clock } : {}) });
  const sessions: SentinelSessions = {
    kind: 'sentinel-sessions',
    rulebase: probe.rulebase,
    toolNames: probe.toolNames,
    forSession(sessionId) {
      if (typeof sessionId !== 'string' || sessionId === '') {
        throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: "Pass the conversation's id (a thread id, a chat id)." });
      }
      let sentinel = sentinels.get(sessionId) as Sentinel | undefined;
      if (!sentinel) {
        sentinel = createSentinel({ ...options, facts: newStore(sessionId) });
        // Closing the sessions closes every sentinel they gave out, and waits for its checks.
        lifecycle.guard(sentinel, SENTINEL_ASYNC_CALLS, SENTINEL_SYNC_CALLS);
        sentinels.set(sessionId, sentinel);
      }
      return sentinel;
    },
    delete(sessionId) {
      sentinels.delete(sessionId);
    },
    resetSession(sessionId) {
      sentinels.delete(sessionId);
    },
    isGuarded: (tool) => probe.isGuarded(tool),
    close: () => lifecycle.close(() => flushTelemetry(systemTimers)),
  };
  const lifecycle = createLifecycle('sentinel-sessions');
  lifecycle.guard(sessions, [], ['forSession', 'delete', 'resetSession']);
  return sessions;
}

/**
 * Checks an adapter's `sentinel` option: absent, a sentinel, or per-conversation sentinels.
 * @throws InvalidOptionError for anything else.
 */
export function assertSentinelOption(value: unknown): asserts value is SentinelSource | undefined {
  if (value === undefined) return;
  const candidate = (typeof value === 'object' && value !== null ? value : {}) as Partial<Sentinel & SentinelSessions>;
  if (typeof candidate.check === 'function' || (candidate.kind === 'sentinel-sessions' && typeof candidate.forSession === 'function')) return;
  throw new InvalidOptionError({ parameter: 'sentinel', value, fix: 'Pass the result of createSentinel() or createSentinelSessions().' });
}

/** Whether a source is per-conversation sentinels rather than one sentinel. */
export function isSentinelSessions(source: SentinelSource): source is SentinelSessions {
  return (source as Partial<SentinelSessions>).kind === 'sentinel-sessions';
}

/**
 * The sentinel that judges a conversation's calls: the single sentinel, or the conversation's own.
 * @throws InvalidOptionError when the source is per conversation and there is no session id to pick one with.
 */
export function sentinelFor(source: SentinelSource, sessionId: string | undefined): Sentinel {
  if (!isSentinelSessions(source)) return source;
  if (sessionId === undefined) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: 'Per-conversation sentinels need the session id of each call; pass sessionId to the adapter, or let it read the thread id.' });
  }
  return source.forSession(sessionId);
}
