import { runOfSameCall, type CallRecord } from './call-history.js';
import { callEvidence } from './prepare-step.js';
import type { Ring } from './ring.js';
import type { LoopFinding } from './types.js';

/**
 * `repeated-action`: the newest `threshold` calls are the same call (name and normalised arguments) and each came
 * back with the same result, without error. Different results mean the agent is getting somewhere (a changed file,
 * a moving queue), so they never count; only answered calls do, so it fires when the last result arrives.
 * @internal
 */
export function findRepeatedAction(calls: Ring<CallRecord>, threshold: number): LoopFinding | null {
  const newest = calls.fromEnd(0);
  const result = newest?.result;
  if (newest === undefined || result === undefined || result.isError) return null;
  const run = runOfSameCall(calls, (call) => call.result !== undefined && !call.result.isError && call.result.key === result.key);
  if (run.length < threshold) return null;
  return {
    kind: 'repeated-action',
    loopId: `repeated-action:${newest.key.toString(36)}`,
    evidence: { steps: run.map((call) => call.step), repetitions: run.length, calls: [callEvidence(newest)] },
    detail: `you called \`${newest.name}\` ${run.length} times in a row with the same arguments and got the same result each time`,
  };
}
