import type { CallRecord } from './call-history.js';
import { callEvidence } from './prepare-step.js';
import type { Ring } from './ring.js';
import type { LoopFinding } from './types.js';

/**
 * The newest calls, counting back from the newest, that are the same call (name and normalised arguments) and whose
 * results are identical or not known yet; a failed call ends the run (failures are `repeated-error`'s).
 * @internal
 */
export function runOfUnchangedCall(calls: Ring<CallRecord>): CallRecord[] {
  const newest = calls.fromEnd(0);
  if (newest === undefined) return [];
  const run: CallRecord[] = [];
  let resultKey: number | undefined;
  for (let back = 0; back < calls.length; back++) {
    const call = calls.fromEnd(back)!;
    if (call.key !== newest.key || call.result?.isError) break;
    if (call.result !== undefined) {
      if (resultKey !== undefined && call.result.key !== resultKey) break;
      resultKey = call.result.key;
    }
    run.push(call);
  }
  return run.reverse();
}

/**
 * `repeated-action`: the newest `threshold` calls are the same call, and each came back with the same result or has
 * no result yet. Checked when a call is made, so the `threshold`-th identical call is reported before it runs, as
 * Roo Code refuses the 4th identical consecutive call and OpenHands calls 4 identical action/observation pairs stuck.
 * Identical calls whose results differ (a different syntax error each run) are progress: they are left to
 * `tool-cycle`, which needs more repetitions.
 * @param warning `true` for the earlier warning (`repeatedActionWarning`), a loop of its own so it never hastens
 *   the stop.
 * @internal
 */
export function findRepeatedAction(calls: Ring<CallRecord>, threshold: number, warning = false): LoopFinding | null {
  const run = runOfUnchangedCall(calls);
  if (warning ? run.length !== threshold : run.length < threshold) return null;
  const newest = run.at(-1)!;
  const answered = run.filter((call) => call.result !== undefined).length;
  const outcome = answered === 0 ? '' : answered === run.length ? ' and got the same result each time' : ' and got the same result each time it answered';
  return {
    kind: 'repeated-action',
    loopId: `${warning ? 'repeated-action-warning' : 'repeated-action'}:${newest.key.toString(36)}`,
    evidence: { steps: run.map((call) => call.step), repetitions: run.length, calls: [callEvidence(newest)] },
    detail: `you called \`${newest.name}\` ${run.length} times in a row with the same arguments${outcome}`,
  };
}
