/**
 * A small benchmark harness: runs a function many times, reports percentiles in microseconds.
 * Timings are wall-clock on a shared machine, so every suite compares against a baseline measured in the same run.
 */
export interface BenchRow {
  /** Suite name, e.g. `constraints`. */
  suite: string;
  /** What was measured, e.g. `10 constraints, history 10,000, incremental`. */
  name: string;
  /** Timed calls; 0 for a row that reports a size rather than a time. */
  samples: number;
  p50Us: number;
  p99Us: number;
  meanUs: number;
  /** Free-form numbers a suite wants in the JSON (sizes, ratios). */
  extra?: Record<string, number | string>;
  /** The target from DESIGN.md section 13, as text, and whether this run met it. */
  target?: string;
  met?: boolean;
}

export interface MeasureOptions {
  /** Timed calls. @default 2000 */
  samples?: number;
  /** Untimed calls first, so the JIT has settled. @default 200 */
  warmup?: number;
  /** Calls per timed sample, for operations too quick to time one by one. @default 1 */
  batch?: number;
}

/** Times `fn` and returns percentiles of one call, in microseconds. `fn` receives the call index. */
export function measure(fn: (index: number) => unknown, { samples = 2000, warmup = 200, batch = 1 }: MeasureOptions = {}) {
  let index = 0;
  for (let i = 0; i < warmup * batch; i++) fn(index++);
  const times = new Float64Array(samples);
  for (let s = 0; s < samples; s++) {
    const start = performance.now();
    for (let b = 0; b < batch; b++) fn(index++);
    times[s] = ((performance.now() - start) * 1000) / batch;
  }
  times.sort();
  const mean = times.reduce((sum, t) => sum + t, 0) / samples;
  return { samples, p50Us: percentile(times, 0.5), p99Us: percentile(times, 0.99), meanUs: mean };
}

/** Async variant of `measure`, for operations that await. */
export async function measureAsync(fn: (index: number) => Promise<unknown>, { samples = 500, warmup = 50, batch = 1 }: MeasureOptions = {}) {
  let index = 0;
  for (let i = 0; i < warmup * batch; i++) await fn(index++);
  const times = new Float64Array(samples);
  for (let s = 0; s < samples; s++) {
    const start = performance.now();
    for (let b = 0; b < batch; b++) await fn(index++);
    times[s] = ((performance.now() - start) * 1000) / batch;
  }
  times.sort();
  const mean = times.reduce((sum, t) => sum + t, 0) / samples;
  return { samples, p50Us: percentile(times, 0.5), p99Us: percentile(times, 0.99), meanUs: mean };
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** One run's cost: wall time, and the process's CPU time, which other processes on a busy machine do not inflate. */
export async function timedRun(run: () => Promise<unknown>): Promise<{ wallUs: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const wallUs = (performance.now() - start) * 1000;
  const used = process.cpuUsage(cpu);
  return { wallUs, cpuUs: used.user + used.system };
}

/** p50, p99 and mean of samples given in microseconds, in any order. */
export function summarize(values: readonly number[]): { p50Us: number; p99Us: number; meanUs: number } {
  const sorted = Float64Array.from(values).sort();
  return { p50Us: percentile(sorted, 0.5), p99Us: percentile(sorted, 0.99), meanUs: values.reduce((sum, value) => sum + value, 0) / values.length };
}
