import { within } from '../../async/index.js';
import type { Timers } from '../../clock/index.js';
import { warnSafely, type Logger } from '../../monitor/fail-open.js';
import type { RedisCommandClient } from './types.js';

/**
 * What each of the store's registries (conversation placement, response records) needs to fail open: its commands
 * bounded by `timeoutMs`, and the commands Redis did not answer counted and logged once.
 */
export function failOpenCommands({ client, timeoutMs, timers, logger, describe }: { client: RedisCommandClient; timeoutMs: number; timers: Timers; logger: Logger; describe: (error: unknown) => string }) {
  let missed = 0;
  return {
    command: (args: string[]) => Promise.resolve(within(client.sendCommand(args), timeoutMs, timers)),
    miss(error: unknown): void {
      if (missed++ === 0) warnSafely(logger, `[panoptes redis] ${describe(error)}`);
    },
    misses: () => missed,
  };
}
