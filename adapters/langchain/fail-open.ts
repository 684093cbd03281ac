import { warnSafely, type Logger } from '../../src/index.js';

/**
 * Records a failure of Panoptes' own work on an agent's path so the agent can go on: logged
 * once per place, then only counted. Errors that are the host's control flow (LangGraph's interrupts) are rethrown.
 * For code on a model call's path, which awaits in its own `try` rather than through {@link createFailOpen}'s
 * wrapper (one async function and promise fewer per call).
 * @param isControlFlow recognises errors that are the host's control flow, not failures: those are rethrown.
 * @example
 * const failed = createFailureLog(console, isGraphBubbleUp);
 * try { await monitor.afterModel(session, turn); } catch (error) { failed('monitor.afterModel', error); }
 */
export function createFailureLog(logger: Logger, isControlFlow: (error: unknown) => boolean = () => false) {
  const seen = new Map<string, number>();
  return function failed(where: string, error: unknown): void {
    if (isControlFlow(error)) throw error;
    const count = (seen.get(where) ?? 0) + 1;
    seen.set(where, count);
    if (count === 1) warnSafely(logger, `[panoptes] ${where} failed; the agent goes on unchecked. Later failures here are not logged.`, error);
  };
}

/** Records a failure so the agent can go on: `failed(where, error)`. See {@link createFailureLog}. */
export type FailureLog = ReturnType<typeof createFailureLog>;

/**
 * Runs Panoptes' own work on an agent's path and lets the agent go on when it fails: the
 * failure is logged once per place, then only counted.
 * @param isControlFlow recognises errors that are the host's control flow, not failures (LangGraph's interrupts):
 * those are rethrown.
 */
export function createFailOpen(logger: Logger, isControlFlow: (error: unknown) => boolean = () => false) {
  return failOpenWith(createFailureLog(logger, isControlFlow));
}

/** A fail-open runner that records its failures in `failed`, which code awaiting in its own `try` can share. */
export function failOpenWith(failed: FailureLog) {
  return async function failOpen<T>(where: string, work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch (error) {
      failed(where, error);
      return fallback;
    }
  };
}

/** A fail-open runner: `failOpen(where, work, fallback)`. */
export type FailOpen = ReturnType<typeof createFailOpen>;
