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
