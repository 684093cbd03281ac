import type { Clock } from '../clock/index.js';

/** A clock that moves only when told to, for tests of anything time-dependent. */
export interface FakeClock extends Clock {
  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void;
  /** Sets the time to `ms` milliseconds since the epoch. */
  set(ms: number): void;
}

/**
 * Creates a fake clock starting at `start` (default 2026-01-01T00:00:00Z).
 * @example
 * const clock = createFakeClock();
 * clock.advance(60_000);
 */
export function createFakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}
