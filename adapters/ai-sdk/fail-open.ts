import type { Logger } from '../../src/index.js';

/**
 * Runs Panoptes' side of a call so that its failure never fails the agent (DESIGN.md section 12): an error is
 * logged once per cause and the caller goes on as if Panoptes had nothing to say.
 * @example
 * const failOpen = createFailOpen(console);
 * const decision = await failOpen.run('beforeModel', () => monitor.beforeModel(id, request)); // undefined if it threw
 */
export function createFailOpen(logger: Logger) {
  const logged = new Set<string>();
  /** Logs `message` the first time `cause` comes up. */
  const note = (cause: string, message: string, error?: unknown) => {
    if (logged.has(cause)) return;
    logged.add(cause);
    logger.warn(`[panoptes] ${message} Later ${cause} failures are not logged.`, ...(error === undefined ? [] : [error]));
  };
  return {
    note,
    async run<T>(cause: string, task: () => PromiseLike<T>): Promise<T | undefined> {
      try {
        return await task();
      } catch (error) {
        note(cause, `${cause} failed; the call goes on unchanged.`, error);
        return undefined;
      }
    },
  };
}
