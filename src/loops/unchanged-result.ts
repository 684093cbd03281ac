import type { CallRecord } from './call-history.js';
import { callEvidence } from './prepare-step.js';
import type { Ring } from './ring.js';
import type { LoopFinding } from './types.js';

/**
 * `unchanged-result`: the newest `threshold` calls are to one tool, each with other arguments than the call before
 * it, and every one came back with the same result (hermes-agent#60084: a search reworded again and again, answering "no results" each time).
 * A signature-based check misses it, since no two calls are the same; the unchanged result is the evidence that the
 * rewording gets nowhere. A repeat among them (A, A, A, B) is a retry followed by a change, and repeats are
 * `repeated-action`'s.
 * @internal
 */
export function findUnchangedResult(calls: Ring<CallRecord>, threshold: number): LoopFinding | null {
  const newest = calls.fromEnd(0);
  const result = newest?.result;
  if (newest === undefined || result === undefined || calls.length < threshold) return null;
  const run: CallRecord[] = [];
  for (let back = 0; back < threshold; back++) {
    const call = calls.fromEnd(back)!;
    if (call.name !== newest.name || call.result === undefined || call.result.key !== result.key || call.result.isError !== result.isError) return null;
    if (run.length > 0 && run.at(-1)!.key === call.key) return null;
    run.push(call);
  }
  run.reverse();
  return {
    kind: 'unchanged-result',
    loopId: `unchanged-result:${newest.name}:${result.key.toString(36)}`,
    evidence: { steps: run.map((call) => call.step), repetitions: threshold, calls: run.map(callEvidence) },
    detail: `you called \`${newest.name}\` ${threshold} times in a row with different arguments and got the same result every time`,
  };
}
