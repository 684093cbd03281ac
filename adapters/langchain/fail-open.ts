import type { Logger } from '../../src/index.js';

/**
 * Runs Panoptes' own work on an agent's path and lets the agent go on when it fails (DESIGN.md section 12): the
 * failure is logged once per place, then only counted.
 * @param isControlFlow recognises errors that are the host's control flow, not failures (LangGraph's interrupts):
 * those are rethrown.
 */
export function createFailOpen(logger: Logger, isControlFlow: (error: unknown) => boolean = () => false) {
  const seen = new Map<string, number>();
  return async function failOpen<T>(where: string, work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isControlFlow(error)) throw error;
      const count = (seen.get(where) ?? 0) + 1;
      seen.set(where, count);
      if (count === 1) logger.warn(`[panoptes] ${where} failed; the agent goes on unchecked. Later failures here are not logged.`, error);
      return fallback;
    }
  };
}

/** A fail-open runner: `failOpen(where, work, fallback)`. */
export type FailOpen = ReturnType<typeof createFailOpen>;
