/**
 * The proxy's records of the Responses API's responses (which session each belongs to, which calls it withheld), in
 * Redis, so a request that continues a response by `previous_response_id` finds its session at whichever instance
 * it reaches. One `GET` per continuing request, one `SET` per response; fail-open like the placement.
 * @module
 */
import { systemTimers, type Timers } from '../../clock/index.js';
import type { Logger } from '../../monitor/fail-open.js';
import { failOpenCommands } from './fail-open-commands.js';
import type { RedisCommandClient } from './types.js';

/** What the proxy recorded of one response (the proxy's `ResponseRecord`). */
export interface RedisResponseRecord {
  sessionId: string;
  withheld: Array<{ callId: string; kind: 'function_call' | 'custom_tool_call'; output: string }>;
}

/** Options of {@link createRedisResponseRecords}. */
export interface RedisResponseRecordsOptions {
  client: RedisCommandClient;
  keyPrefix: string;
  /** How long a response can be continued, in milliseconds: the sessions' TTL. */
  ttlMs: number;
  /** Longest wait for Redis, in milliseconds; past it the request continues no session (fail-open, counted). */
  timeoutMs: number;
  logger?: Logger;
  timers?: Timers;
}

/** Response records in Redis, with the count of reads and writes Redis did not answer in time. */
export interface RedisResponseRecords {
  get(responseId: string): Promise<RedisResponseRecord | undefined>;
  set(responseId: string, record: RedisResponseRecord): Promise<void>;
  misses(): number;
}

/** Response ids longer than this are not looked up (the upstream's ids are short). */
const MAX_ID_LENGTH = 256;

/**
 * The proxy's response records in this Redis, under the store's prefix (`<prefix>response:<id>`), each expiring with
 * the sessions. Fail-open: a record Redis does not answer for in time is not found (the request then starts a session
 * of its own; counted, logged once), and a record it does not take is lost the same way.
 */
export function createRedisResponseRecords({ client, keyPrefix, ttlMs, timeoutMs, logger = console, timers = systemTimers }: RedisResponseRecordsOptions): RedisResponseRecords {
  const { command, miss, misses } = failOpenCommands({ client, timeoutMs, timers, logger, describe: (error) => `A response record could not be read or written in Redis (${(error as Error)?.message}); a request continuing that response starts a session of its own.` });
  const key = (responseId: string) => `${keyPrefix}response:${responseId}`;
  return {
    async get(responseId) {
      if (responseId.length > MAX_ID_LENGTH) return undefined;
      try {
        const reply = await command(['GET', key(responseId)]);
        return typeof reply === 'string' ? parseRecord(reply) : undefined;
      } catch (error) {
        miss(error);
        return undefined;
      }
    },
    async set(responseId, record) {
      if (responseId.length > MAX_ID_LENGTH) return;
      try {
        await command(['SET', key(responseId), JSON.stringify(record), 'PX', String(ttlMs)]);
      } catch (error) {
        miss(error);
      }
    },
    misses,
  };
}

/** A stored record, when it reads as one. */
function parseRecord(text: string): RedisResponseRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<RedisResponseRecord>;
    return typeof value?.sessionId === 'string' && Array.isArray(value.withheld) ? (value as RedisResponseRecord) : undefined;
  } catch {
    return undefined;
  }
}
