import type { CallRecord } from './call-history.js';
import type { Ring } from './ring.js';
import type { LoopFinding } from './types.js';

/**
 * `condensation`: the host summarised or trimmed the context `threshold` times in a row with no tool making progress
 * in between: the agent fills its context, loses it, and starts over (OpenHands stops at 10 condensations).
 * @internal
 */
export function findCondensation(count: number, stepNumber: number, threshold: number): LoopFinding | null {
  if (count < threshold) return null;
  return {
    kind: 'condensation',
    loopId: 'condensation',
    evidence: { steps: [stepNumber], repetitions: count },
    detail: `your context was condensed ${count} times in a row without any tool call making progress`,
  };
}

/**
 * Whether the newest answered call made progress: it succeeded with a result no other remembered call got. A tool
 * that keeps answering the same thing, or keeps failing, is not progress.
 * @internal
 */
export function madeProgress(calls: Ring<CallRecord>, answered: CallRecord): boolean {
  const result = answered.result;
  if (result === undefined || result.isError) return false;
  for (let back = 0; back < calls.length; back++) {
    const call = calls.fromEnd(back)!;
    if (call !== answered && call.result?.key === result.key) return false;
  }
  return true;
}
