import { runOfSameCall, type CallRecord } from './call-history.js';
import { callEvidence } from './prepare-step.js';
import type { Ring } from './ring.js';
import type { LoopFinding } from './types.js';

/**
 * `repeated-error`: the newest `threshold` calls are the same call (name and normalised arguments) and each failed.
 * The error texts may differ (they often carry a time or a request id); the same call failing is what counts. A retry
 * with changed arguments is a different call and starts a new run.
 * @internal
 */
export function findRepeatedError(calls: Ring<CallRecord>, threshold: number): LoopFinding | null {
  const run = runOfSameCall(calls, (call) => call.result?.isError === true);
  if (run.length < threshold) return null;
  const newest = run.at(-1)!;
  return {
    kind: 'repeated-error',
    loopId: `repeated-error:${newest.key.toString(36)}`,
    evidence: { steps: run.map((call) => call.step), repetitions: run.length, calls: [callEvidence(newest)] },
    detail: `\`${newest.name}\` failed ${run.length} times in a row with the same arguments`,
  };
}
