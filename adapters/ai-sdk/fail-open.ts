import { warnSafely, type Logger } from '../../src/index.js';

/**
 * Runs Panoptes' side of a call so that its failure never fails the agent: an error is
 * logged once per cause and the caller goes on as if Panoptes had nothing to say. Callers await in their own `try`
 * and report there, rather than through a wrapper: on a model call's path that is one async function and promise
 * fewer per call.
 * @example
 * const failOpen = createFailOpen(console);
 * try { await monitor.afterModel(id, turn); } catch (error) { failOpen.failed('monitor.afterModel', error); }
 */
export function createFailOpen(logger: Logger) {
  const logged = new Set<string>();
  /** Logs `message` the first time `cause` comes up. */
  const note = (cause: string, message: string, error?: unknown) => {
    if (logged.has(cause)) return;
    logged.add(cause);
    warnSafely(logger, `[panoptes] ${message} Later ${cause} failures are not logged.`, ...(error === undefined ? [] : [error]));
  };
  /** Records that `cause` failed with `error`, and that the call went on without it. */
  const failed = (cause: string, error: unknown) => note(cause, `${cause} failed; the call goes on unchanged.`, error);
  return { note, failed };
}
