/**
 * The Lua scripts of the Redis session store, and the versioned form a session takes in Redis. A session is stored as
 * `<version>:<JSON>`: the version is bumped by every write, and a write names the version it was based on, so a write
 * that comes late (a stalled process, a command that sat in a socket while Redis was stopped) can never replace a
 * newer session. A value without the prefix (written by an earlier release of the store) reads as version 0.
 * @module
 */
import { createHash } from 'node:crypto';

/** A Lua script sent by its SHA1 (EVALSHA), so each call carries 40 bytes rather than the script. */
export interface Script {
  source: string;
  sha: string;
}
/** A script with its SHA1. */
export const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') });

/**
 * Runs a script by its SHA through `command`; once after a restart of Redis (which forgets scripts), by its source,
 * which loads it again.
 */
export async function runScript(command: (args: string[]) => Promise<unknown>, { source, sha }: Script, keys: readonly string[], args: readonly string[]): Promise<unknown> {
  try {
    return await command(['EVALSHA', sha, String(keys.length), ...keys, ...args]);
  } catch (error) {
    if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
    return command(['EVAL', source, String(keys.length), ...keys, ...args]);
  }
}

/** The key of a session's state under `keyPrefix`: the one place both the store and its conversation registry name it. */
export const sessionKeyOf = (keyPrefix: string, sessionId: string): string => `${keyPrefix}session:${sessionId}`;

/** A session as read: its version (0: none yet) and its JSON (null: none). */
export interface Versioned {
  version: number;
  text: string | null;
}

const VERSION_PREFIX = /^(\d+):/;

/** A stored value (a reply of GET, or null) as its version and JSON. */
export function decode(stored: unknown): Versioned {
  if (typeof stored !== 'string') return { version: 0, text: null };
  const prefix = VERSION_PREFIX.exec(stored);
  // No JSON text starts with digits and a colon, so a value of an earlier release (plain JSON) is never misread.
  return prefix ? { version: Number(prefix[1]), text: stored.slice(prefix[0].length) } : { version: 0, text: stored };
}

/** The stored form of `text` written over `basedOn`: the next version. */
export const encode = (basedOn: number, text: string): string => `${basedOn + 1}:${text}`;

/**
 * Takes the lease and reads the session in one round trip: KEYS = [lease, session], ARGV = [token, leaseMs, ttlMs].
 * Returns [1, stored value or nil] when taken, [0] when another process holds it.
 */
export const ACQUIRE_AND_READ = script(`if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local value = redis.call('GET', KEYS[2])
  if value then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
  return {1, value}
end
return {0}`);

/** Replies of {@link WRITE_AND_RELEASE}. */
export const WRITTEN = 1;
export const LEASE_LOST = 0;
export const STALE = -1;

/**
 * Writes the session if it is still at the version the write was based on, and lets go of the lease, in one round
 * trip: KEYS = [lease, session], ARGV = [token, basedOn, stored value, ttlMs]. An empty token: no lease to check or
 * let go (a call that runs without it, or a write outside a call); an empty value: nothing to write. Returns
 * {@link WRITTEN}, {@link LEASE_LOST} when the lease is no longer this token's (nothing written, nothing released), or
 * {@link STALE} when the session changed since (nothing written; the lease is let go). Only the version prefix is read
 * (GETRANGE), not the whole session.
 */
export const WRITE_AND_RELEASE = script(`if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local result = 1
if ARGV[3] ~= '' then
  local version = tonumber(string.match(redis.call('GETRANGE', KEYS[2], 0, 20), '^(%d+):')) or 0
  if version == tonumber(ARGV[2]) then redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4]) else result = -1 end
end
if ARGV[1] ~= '' then redis.call('DEL', KEYS[1]) end
return result`);

/** Extends the lease while this process still holds it: KEYS = [lease], ARGV = [token, leaseMs]. Returns 1, or 0 when lost. */
export const RENEW = script(`if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`);
