import { randomUUID } from 'node:crypto';
import { systemTimers, type Timers } from '../../clock/index.js';
import type { Logger } from '../../monitor/fail-open.js';
import { answerHash, placementKeys, type ConversationPlacement, type Placement } from '../../session/index.js';
import { failOpenCommands } from './fail-open-commands.js';
import { runScript, script } from './scripts.js';
import type { RedisCommandClient } from './types.js';

/**
 * Places a request by the recorded answers its history carries, newest first, in one round trip. KEYS = the answers'
 * record keys; ARGV = [keyPrefix, ttlMs, id of a new session]. A record is a hash: `s` (its session), `c` (set once a
 * request continued it). Returns [1, session] when the request continues a session, [2, new id] for a fork of one
 * (its state copied from the state kept when the answer was first continued), [0, new id] for a new conversation.
 *
 * Memory stays bounded: the state kept for forks is the session's as of its latest continued answer only (the previous
 * one is dropped); a fork of an older answer starts afresh, which can refuse more but never lets one conversation's
 * later steps reach another.
 */
// The session key is spelt here as in `sessionKeyOf`: a script can only name keys it is given or builds.
const PLACE = script(`local prefix, ttl, fresh = ARGV[1], ARGV[2], ARGV[3]
for _, key in ipairs(KEYS) do
  local session = redis.call('HGET', key, 's')
  if session then
    local kept = key .. ':state'
    if redis.call('HSETNX', key, 'c', '1') == 1 then
      redis.call('PEXPIRE', key, ttl)
      local latest = prefix .. 'latest-state:' .. session
      local previous = redis.call('GET', latest)
      if previous and previous ~= kept then redis.call('DEL', previous) end
      if redis.call('COPY', prefix .. 'session:' .. session, kept, 'REPLACE') == 1 then
        redis.call('PEXPIRE', kept, ttl)
        redis.call('SET', latest, kept, 'PX', ttl)
      end
      return {1, session}
    end
    if redis.call('COPY', kept, prefix .. 'session:' .. fresh, 'REPLACE') == 1 then redis.call('PEXPIRE', prefix .. 'session:' .. fresh, ttl) end
    return {2, fresh}
  end
end
return {0, fresh}`);

/** Records an answer: KEYS = [record]; ARGV = [session, ttlMs]. A record of the same history replaces the older one. */
const RECORD = script(`redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 's', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`);

/** Options of {@link createRedisConversationPlacement}. */
export interface RedisConversationPlacementOptions {
  client: RedisCommandClient;
  /** The session store's prefix: forks copy session state under it. */
  keyPrefix: string;
  /** How long a recorded answer can be continued, in milliseconds: the sessions' TTL. */
  ttlMs: number;
  /** Longest wait for Redis, in milliseconds; past it the request starts a session of its own (fail-open, counted). */
  timeoutMs: number;
  logger?: Logger;
  timers?: Timers;
  /** @default `conversation-` and a random UUID */
  newSessionId?: () => string;
}

/** A conversation placement in Redis, with the count of requests placed without it. */
export interface RedisConversationPlacement extends ConversationPlacement {
  place(messages: Parameters<ConversationPlacement['place']>[0]): Promise<Placement>;
  answered(placement: Placement, turn: Parameters<ConversationPlacement['answered']>[1]): Promise<void>;
  /** Placements and records that Redis did not answer in time: the request ran in a session of its own. */
  misses(): number;
}

/**
 * The registry of conversation sessions in Redis, so every process on one Redis places a request that names no
 * session in the same session (see {@link ConversationPlacement}). Fail-open: when Redis does not answer within
 * `timeoutMs`, the request gets a new session of its own (counted, logged once), so no call waits on Redis for long
 * and no conversation is ever merged with another.
 */
export function createRedisConversationPlacement({
  client,
  keyPrefix,
  ttlMs,
  timeoutMs,
  logger = console,
  timers = systemTimers,
  newSessionId = () => `conversation-${randomUUID()}`,
}: RedisConversationPlacementOptions): RedisConversationPlacement {
  const { command, miss, misses } = failOpenCommands({ client, timeoutMs, timers, logger, describe: (error) => `Placing a conversation in Redis failed (${(error as Error)?.message}); the request ran in a session of its own.` });
  const recordKey = (hash: string) => `${keyPrefix}answer:${hash}`;
  return {
    async place(messages) {
      const { candidates, request } = placementKeys(messages);
      const fresh = newSessionId();
      try {
        const reply = await runScript(command, PLACE, candidates.map(recordKey), [keyPrefix, String(ttlMs), fresh]);
        const sessionId = Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : fresh;
        return { sessionId, request };
      } catch (error) {
        miss(error);
        return { sessionId: fresh, request };
      }
    },
    async answered({ sessionId, request }, turn) {
      try {
        await runScript(command, RECORD, [recordKey(answerHash(request, turn))], [sessionId, String(ttlMs)]);
      } catch (error) {
        miss(error);
      }
    },
    misses,
  };
}
