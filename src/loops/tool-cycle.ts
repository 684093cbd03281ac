import type { CallRecord } from './call-history.js';
import { hashList } from './hash.js';
import { callEvidence } from './prepare-step.js';
import type { Ring } from './ring.js';
import type { LoopFinding } from './types.js';

/**
 * `tool-cycle`: the newest calls are a sequence of 1 to `maxLength` calls repeated `repetitions` times back to back
 * (A, A, A, A, A or A, B, C, A, B, C, ...). Calls compare by name and normalised arguments, results aside, so a sweep
 * over different arguments (pages, files, ids) is never a cycle. The shortest cycle is reported, and a cycle is the
 * same loop whichever call it was caught on (its id is the same for every rotation).
 * @internal
 */
export function findToolCycle(calls: Ring<CallRecord>, { maxLength, repetitions }: { maxLength: number; repetitions: number }): LoopFinding | null {
  for (let length = 1; length <= maxLength; length++) {
    const span = length * repetitions;
    if (calls.length < span) return null;
    if (!isPeriodic(calls, length, span)) continue;
    const cycle = Array.from({ length }, (_, i) => calls.fromEnd(length - 1 - i)!);
    const steps = new Set<number>();
    for (let back = span - 1; back >= 0; back--) steps.add(calls.fromEnd(back)!.step);
    const names = cycle.map((call) => `\`${call.name}\``);
    return {
      kind: 'tool-cycle',
      loopId: `tool-cycle:${hashList(smallestRotation(cycle.map((call) => call.key))).toString(36)}`,
      evidence: { steps: [...steps], repetitions, calls: cycle.map(callEvidence) },
      detail:
        length === 1
          ? `you made the same call to ${names[0]} ${repetitions} times in a row`
          : `you repeated the same ${length} tool calls (${names.join(' → ')}) ${repetitions} times in a row`,
    };
  }
  return null;
}

/** Whether the newest `span` calls repeat with period `length`. */
function isPeriodic(calls: Ring<CallRecord>, length: number, span: number): boolean {
  for (let back = 0; back + length < span; back++) {
    if (calls.fromEnd(back)!.key !== calls.fromEnd(back + length)!.key) return false;
  }
  return true;
}

/** The rotation of `keys` that sorts first, so A, B, C and B, C, A name the same cycle. */
function smallestRotation(keys: readonly number[]): number[] {
  let best = keys;
  for (let start = 1; start < keys.length; start++) {
    const rotation = [...keys.slice(start), ...keys.slice(0, start)];
    if (compare(rotation, best) < 0) best = rotation;
  }
  return [...best];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
