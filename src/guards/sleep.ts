import { setTimeout as wait } from 'node:timers/promises';

/**
 * Waits `ms` milliseconds unless `signal` aborts first (then resolves early). Injected into the sentinel like the
 * clock, so tests control timeouts.
 */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * The real timer, the default when none is given; the one place in the guards that schedules a timer. Unref'd, so a
 * pending timeout never keeps the process alive.
 */
export const systemSleep: Sleep = async (ms, signal) => {
  try {
    await wait(ms, undefined, { signal, ref: false });
  } catch {
    // Aborted because the call finished first: nothing to wait for.
  }
};
