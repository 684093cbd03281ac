import type { StepKey } from './alternation.js';
import type { CallRecord } from './call-history.js';
import type { MonologueState } from './monologue.js';
import type { WindowEntry } from './semantic-window.js';
import type { LoopSession } from './session.js';
import type { LoopHint } from './types.js';

/**
 * A loop session as plain JSON, so a store shared between processes (Redis) can carry it with the monitor's session:
 * the call history, the step keys, the monologue run, the short semantic window (vectors as base64 float32), the
 * escalation counts and the pending hint. The long window (an HNSW index, up to `2 x size` vectors) is not carried, as
 * it would make every write of the session that large: each process keeps its own, and catches it up from the shared
 * short window when it reads the session back (see {@link withLongWindowOf}).
 */
export interface LoopSessionSnapshot {
  steps: number;
  calls: CallRecord[];
  /** Each awaiting call: its index in `calls` (the same record), or the record itself when it is not there. */
  awaiting: Array<number | CallRecord>;
  recent: StepKey[];
  monologue: MonologueState;
  window: Array<Omit<WindowEntry, 'vector'> & { vector: string }>;
  loops: Array<[string, number]>;
  pending?: LoopHint;
  unknownCalls: number;
  condensations: number;
}

/** The session as JSON. @internal */
export function toLoopSnapshot(session: LoopSession): LoopSessionSnapshot {
  const calls = [...session.calls];
  return {
    steps: session.steps,
    calls,
    awaiting: session.awaiting.map((record) => {
      const index = calls.indexOf(record);
      return index === -1 ? record : index;
    }),
    recent: [...session.recent],
    monologue: session.monologue,
    window: [...session.window].map((entry) => ({ ...entry, vector: Buffer.from(entry.vector.buffer, entry.vector.byteOffset, entry.vector.byteLength).toString('base64') })),
    loops: [...session.loops],
    ...(session.pending ? { pending: session.pending } : {}),
    unknownCalls: session.unknownCalls,
    condensations: session.condensations,
  };
}

/** The session back from JSON, into a fresh session sized by the detector's options (`create`). @internal */
export function fromLoopSnapshot(snapshot: LoopSessionSnapshot, create: () => LoopSession): LoopSession {
  const session = create();
  session.steps = snapshot.steps;
  const calls = snapshot.calls.map((record) => ({ ...record }));
  for (const record of calls) session.calls.push(record);
  session.awaiting = snapshot.awaiting.map((entry) => (typeof entry === 'number' ? calls[entry]! : { ...entry }));
  for (const key of snapshot.recent) session.recent.push(key);
  session.monologue = { ...snapshot.monologue, steps: [...snapshot.monologue.steps] };
  for (const entry of snapshot.window) {
    const bytes = Buffer.from(entry.vector, 'base64');
    const vector = new Float32Array(bytes.byteLength / 4);
    new Uint8Array(vector.buffer).set(bytes);
    session.window.push({ ...entry, vector });
  }
  session.loops = new Map(snapshot.loops);
  session.pending = snapshot.pending;
  session.unknownCalls = snapshot.unknownCalls;
  session.condensations = snapshot.condensations;
  return session;
}

/** Whether `value` looks like a snapshot this module wrote (a store may hold anything). @internal */
export function isLoopSnapshot(value: unknown): value is LoopSessionSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const snapshot = value as Partial<LoopSessionSnapshot>;
  return typeof snapshot.steps === 'number' && Array.isArray(snapshot.calls) && Array.isArray(snapshot.awaiting) && Array.isArray(snapshot.recent) && Array.isArray(snapshot.window) && Array.isArray(snapshot.loops) && typeof snapshot.monologue === 'object';
}

/**
 * Keeps this process's long window across a read of the session from a shared store: the session read back (`imported`)
 * gets the long window `held` here, caught up with the steps other processes took since, taken from the shared short
 * window (each step carries its vector there). Steps taken elsewhere that already left the short window (more than
 * `window` steps in a row on other processes) are missing from it; a snapshot older than what is held here (a write
 * that failed, a session started afresh) drops the long window, which then starts again from this step.
 * @internal
 */
export function withLongWindowOf(held: LoopSession | undefined, imported: LoopSession): LoopSession {
  const long = held?.long;
  if (!long || imported.steps < held.steps) return imported;
  try {
    for (const entry of imported.window) if (entry.step > held.steps) long.add(entry.vector, entry.key, entry.step, entry.at, entry.cluster);
  } catch {
    return imported; // an index fault: start the long window afresh rather than carry a broken one
  }
  imported.long = long;
  return imported;
}
