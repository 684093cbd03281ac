/**
 * One `transition()` step of the workflow state machine, with 10 constraints: the whole step (monitors, doomed flags,
 * trace and history bookkeeping), not just the monitors. Copying the kept tail of the trace and history is part of a
 * step, so its cost grows with the session until the tail is full (100 entries by default) and then stays flat: the
 * target compares history 10,000 with history 1,000, both past the tail; history 10 is shown for scale. The contrast
 * rows keep the whole history (`historyLimit: Infinity`), so every step copies all of it.
 */
import { createSnapshot, parseWorkflow, transition, type WorkflowSnapshot } from 'panoptes';
import { measure, type BenchRow } from './harness.js';

const STATES = Array.from({ length: 20 }, (_, index) => `s${String(index).padStart(2, '0')}`);
const CYCLE = STATES.slice(0, 18); // s18 and s19 never occur, so every constraint stays pending

const WORKFLOW = parseWorkflow(
  [
    'name: bench',
    'states:',
    ...STATES.map((state, index) => `  - { name: ${state}${index === 0 ? ', initial: true' : ''}, classification: { tool_calls: [t_${state}] } }`),
    'transitions:',
    ...STATES.map((state, index) => `  - { from: ${state}, to: ${STATES[(index + 1) % STATES.length]} }`),
    '  - { from: s17, to: s00 }',
    'constraints:',
    '  - { name: c1, type: eventually, target: s18, severity: warning }',
    '  - { name: c2, type: never, target: s19 }',
    '  - { name: c3, type: always, condition: "!s19" }',
    '  - { name: c4, type: precedence, trigger: s19, target: s18 }',
    '  - { name: c5, type: response, trigger: s01, target: s02 }',
    '  - { name: c6, type: response, trigger: [s03, s04], target: "!s03" }',
    '  - { name: c7, type: until, trigger: s19, target: s00 }',
    '  - { name: c8, type: next, trigger: s05, target: s06 }',
    '  - { name: c9, type: next, trigger: [s07, s08], target: [s08, s09] }',
    '  - { name: c10, type: until, trigger: "!s19", target: s19 }',
  ].join('\n'),
);

function prepare(history: number, historyLimit: number): WorkflowSnapshot {
  let snapshot = createSnapshot(WORKFLOW, { at: 0, historyLimit });
  for (let i = 1; i < history; i++) snapshot = transition(WORKFLOW, snapshot, { type: 'enter', state: CYCLE[i % CYCLE.length]!, at: i }).snapshot;
  return snapshot;
}

/** Runs the suite: whole-step cost at two history lengths, bounded and unbounded history. */
export function workflowBench(): BenchRow[] {
  const rows: BenchRow[] = [];
  let sink = 0;
  const step = (snapshot: WorkflowSnapshot) => {
    const next = CYCLE[(snapshot.traceLength + 1) % CYCLE.length]!;
    return () => {
      sink += transition(WORKFLOW, snapshot, { type: 'enter', state: next, at: 1 }).snapshot.traceLength;
    };
  };
  for (const [label, limit] of [
    ['historyLimit 100 (default)', 100],
    ['unbounded history', Infinity],
  ] as const) {
    const bounded = limit !== Infinity;
    const scale = measure(step(prepare(10, limit)), { samples: 2000, warmup: 200, batch: 20 });
    const thousand = measure(step(prepare(1_000, limit)), { samples: 1000, warmup: 100, batch: 10 });
    const long = measure(step(prepare(10_000, limit)), { samples: 500, warmup: 50, batch: 5 });
    const ratio = long.p50Us / thousand.p50Us;
    rows.push({ suite: 'workflow', name: `transition(), 10 constraints, history 10, ${label}`, ...scale });
    rows.push({ suite: 'workflow', name: `transition(), 10 constraints, history 1,000, ${label}`, ...thousand });
    rows.push({
      suite: 'workflow',
      name: `transition(), 10 constraints, history 10,000, ${label}`,
      ...long,
      extra: { 'ratio to history 1,000': Number(ratio.toFixed(2)) },
      ...(bounded ? { target: 'flat past the tail: ratio <= 1.5', met: ratio <= 1.5 } : {}),
    });
  }
  const idle = JSON.stringify(createSnapshot(WORKFLOW, { at: 0 }));
  const create = measure(() => createSnapshot(WORKFLOW, { at: 0 }), { samples: 1000, warmup: 100, batch: 5 });
  rows.push({ suite: 'workflow', name: 'createSnapshot(), new session', ...create, extra: { 'JSON bytes': idle.length } });
  if (sink === -1) console.log(sink); // keeps the work observable to the optimiser
  return rows;
}
