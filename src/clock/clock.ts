/** Where the core reads time. Injected everywhere so tests control it and nothing under `src/` calls `Date.now()`. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real clock, the default when none is given. The only place in the core that reads the system time. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * Where the core schedules timeouts. Injected like the `Clock`, so tests drive time and nothing under `src/` but
 * {@link systemTimers} touches the global timer functions.
 */
export interface Timers {
  /** Calls `callback` once after `ms` milliseconds; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a callback scheduled by `setTimeout`; a handle that already fired is ignored. */
  clearTimeout(handle: unknown): void;
}

/** The real timers, the default when none are given. */
export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
