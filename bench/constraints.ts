/**
 * Constraint monitoring per step (DESIGN.md section 13): stepping 10 incremental monitors must cost the same at
 * history 10,000 as at history 10 (ratio <= 1.5). The baseline, measured in the same run, is what the reference
 * engine does: re-evaluate every constraint over the whole trace on every step.
 */
import {
  compileConstraint,
  evaluateConstraint,
  type CompiledConstraint,
  initialMonitorState,
  stepMonitor,
  type MonitorState,
  type TemporalConstraint,
} from 'panoptes';
import { measure, type BenchRow } from './harness.js';

const STATES = Array.from({ length: 20 }, (_, index) => `s${String(index).padStart(2, '0')}`);
// The trace cycles through the first 18 states; s18 and s19 never occur, so every constraint below stays pending
// at any history length (hence no `next` without trigger: the second state decides it). Pending is the monitors' busiest case (a decided monitor returns at once) and makes the
// re-scan baseline read the whole trace, as the reference engine does.
const CYCLE = STATES.slice(0, 18);

const CONSTRAINTS: TemporalConstraint[] = [
  { name: 'reach-s18', type: 'eventually', target: 's18' },
  { name: 'never-s19', type: 'never', target: 's19' },
  { name: 'always-not-s19', type: 'always', condition: '!s19' },
  { name: 's18-before-s19', type: 'precedence', trigger: 's19', target: 's18' },
  { name: 'answer-s01', type: 'response', trigger: 's01', target: 's02' },
  { name: 'answer-s03-s04', type: 'response', trigger: ['s03', 's04'], target: '!s03' },
  { name: 'hold-s19', type: 'until', trigger: 's19', target: 's00' },
  { name: 's05-then-s06', type: 'next', trigger: 's05', target: 's06' },
  { name: 's07-s08-then', type: 'next', trigger: ['s07', 's08'], target: ['s08', 's09'] },
  { name: 'stay-until-s19', type: 'until', trigger: '!s19', target: 's19' },
];

const HISTORIES = [10, 10_000] as const;
/** Incremental timings alternate between the histories for a few rounds; each row keeps its best round. */
const ROUNDS = 3;

interface Workload {
  history: number;
  /** The trace before the timed step, and with it. */
  extended: string[];
  /** Every monitor after stepping through the history. */
  states: MonitorState[];
  /** The state the timed step enters. */
  entered: string;
}

/** Runs the suite: per-step cost of 10 constraints at two history lengths, incremental and re-scan. */
export function constraintsBench(): BenchRow[] {
  const compiled = CONSTRAINTS.map((constraint) => compileConstraint(constraint));
  const workloads = HISTORIES.map((history) => prepare(compiled, history));
  collectGarbage();
  let sink = 0;

  // Stepping is pure, so each timed call steps every monitor once from the same pre-filled point: the history
  // does not grow under the measurement.
  const best = workloads.map(() => undefined as ReturnType<typeof measure> | undefined);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, { states, entered }] of workloads.entries()) {
      const timing = measure(
        () => {
          for (let i = 0; i < compiled.length; i++) sink += stepMonitor(compiled[i]!, states[i]!, entered).steps;
        },
        { samples: 2000, warmup: 200, batch: 50 },
      );
      if (!best[index] || timing.p50Us < best[index].p50Us) best[index] = timing;
    }
  }

  const rescan = workloads.map(({ history, extended }) => {
    collectGarbage();
    return measure(
      () => {
        for (const constraint of CONSTRAINTS) sink += evaluateConstraint(constraint, extended).length;
      },
      history > 1000 ? { samples: 200, warmup: 20 } : { samples: 2000, warmup: 200, batch: 50 },
    );
  });

  const [short, long] = best as [ReturnType<typeof measure>, ReturnType<typeof measure>];
  const [rescanShort, rescanLong] = rescan as [ReturnType<typeof measure>, ReturnType<typeof measure>];
  const ratio = long.p50Us / short.p50Us;
  const label = (history: number, how: string) => `10 constraints, history ${history.toLocaleString('en')}, ${how}`;
  // Keeps the optimiser from discarding the timed calls.
  if (sink === -1) console.log(sink);
  return [
    { suite: 'constraints', name: label(HISTORIES[0], 'incremental'), ...short, extra: { history: HISTORIES[0] } },
    {
      suite: 'constraints',
      name: label(HISTORIES[1], 'incremental'),
      ...long,
      extra: { history: HISTORIES[1], ratio: round(ratio), speedupOverRescan: round(rescanLong.p50Us / long.p50Us) },
      target: 'ratio <= 1.5',
      met: ratio <= 1.5,
    },
    { suite: 'constraints', name: label(HISTORIES[0], 're-scan baseline'), ...rescanShort, extra: { history: HISTORIES[0] } },
    {
      suite: 'constraints',
      name: label(HISTORIES[1], 're-scan baseline'),
      ...rescanLong,
      extra: { history: HISTORIES[1], ratio: round(rescanLong.p50Us / rescanShort.p50Us) },
    },
  ];
}

function prepare(compiled: readonly CompiledConstraint[], history: number): Workload {
  const trace = Array.from({ length: history }, (_, index) => CYCLE[index % CYCLE.length]!);
  const states = compiled.map((constraint) => trace.reduce((state, entered) => stepMonitor(constraint, state, entered), initialMonitorState(constraint)));
  if (states.some((state) => state.verdict !== 'pending')) throw new Error('bench workload must keep every monitor pending');
  const entered = CYCLE[history % CYCLE.length]!;
  return { history, extended: [...trace, entered], states, entered };
}

/** `npm run bench` runs node with --expose-gc: start each measurement without the pre-fill's garbage. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
