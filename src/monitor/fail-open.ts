/** Where Panoptes reports its own failures. `console` fits; so does any logger with `warn`. */
export interface Logger {
  warn(message: string, ...details: unknown[]): void;
  /** Receives the monitor's decision lines with `debug` on (`logger.warn` does without it). */
  debug?(message: string, ...details: unknown[]): void;
}

/**
 * `logger.warn`, for reporting Panoptes' own failures: a logger that throws is user code too, and must not fail the
 * agent's call it was reporting on.
 */
export function warnSafely(logger: Logger, message: string, ...details: unknown[]): void {
  try {
    logger.warn(message, ...details);
  } catch {
    // Nothing left to report to.
  }
}

/** Where a miss is also reported: a counter and a span event (the telemetry's `miss`). */
export interface MissSink {
  miss(cause: string, error?: unknown): void;
}

/**
 * Kinds of Panoptes' own failures that let a call through unchanged. `selection`: a monitor of several workflows
 * could not use what its selector chose (it threw, ran out of time, or named no workflow of the monitor), so the
 * session runs under the default workflow. `judge`: a rubric on a state could not be judged. `constraint`,
 * `strategy`, `tier`: a registered constraint type's evaluator, intervention strategy or classification tier failed.
 */
export type MissCause = 'embedding' | 'store' | 'classifier' | 'listener' | 'telemetry' | 'internal' | 'hold' | 'selection' | 'judge' | 'constraint' | 'strategy' | 'tier';

/**
 * Counts Panoptes' own failures by cause and logs each cause once, so a broken embedder is reported without
 * flooding the log on every call.
 */
export function createMissCounter(logger: Logger, sink?: MissSink) {
  const counts: Partial<Record<MissCause, number>> = {};
  return {
    record(cause: MissCause, message: string, error?: unknown) {
      counts[cause] = (counts[cause] ?? 0) + 1;
      sink?.miss(cause, error);
      if (counts[cause] === 1) warnSafely(logger, `[panoptes] ${message} The call goes on unchanged; later ${cause} failures are counted, not logged.`, error);
    },
    counts: (): Readonly<Partial<Record<MissCause, number>>> => ({ ...counts }),
  };
}
