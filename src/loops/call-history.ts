import { excerpt } from './hints.js';
import type { PreparedCall, PreparedResult } from './prepare-step.js';
import type { Ring } from './ring.js';

/** A tool call remembered by a session: hashes, the step it came from and, once known, its result. @internal */
export interface CallRecord {
  key: number;
  name: string;
  id: string | undefined;
  /** Canonical arguments cut to 200 characters, for evidence only. */
  args: string;
  step: number;
  result: { key: number; isError: boolean } | undefined;
}

/** The record kept for a call of step `step`. @internal */
export function callRecord(call: PreparedCall, step: number): CallRecord {
  return { key: call.key, name: call.name, id: call.id, args: excerpt(call.args), step, result: undefined };
}

/**
 * Pairs results with the calls they answer: by `toolCallId` among the recent calls; otherwise the first unanswered
 * call without an id of the latest step with calls that has the same tool name (or any name, when the result has
 * none). A call with an id is only ever answered by that id, so a result for an exempt or forgotten call never lands
 * on the wrong one. A result for a call already answered is ignored, so seeing the same results twice changes
 * nothing.
 * @returns The newest call that got a result, or `undefined` when none did.
 * @internal
 */
export function attachResults(calls: Ring<CallRecord>, awaiting: readonly CallRecord[], results: readonly PreparedResult[]): CallRecord | undefined {
  let newest: CallRecord | undefined;
  for (const result of results) {
    const record =
      byId(calls, result.toolCallId) ??
      awaiting.find((call) => call.id === undefined && call.result === undefined && (result.name === undefined || call.name === result.name));
    if (record === undefined || record.result !== undefined) continue;
    record.result = { key: result.key, isError: result.isError };
    if (newest === undefined || record.step >= newest.step) newest = record;
  }
  return newest;
}

function byId(calls: Ring<CallRecord>, id: string | undefined): CallRecord | undefined {
  if (id === undefined) return undefined;
  for (let back = 0; back < calls.length; back++) {
    const call = calls.fromEnd(back)!;
    if (call.id === id) return call;
  }
  return undefined;
}

/**
 * How many of the newest calls, counting back from the newest, are the same call as the newest and satisfy `test`.
 * @internal
 */
export function runOfSameCall(calls: Ring<CallRecord>, test: (call: CallRecord) => boolean): CallRecord[] {
  const newest = calls.fromEnd(0);
  if (newest === undefined || !test(newest)) return [];
  const run = [newest];
  for (let back = 1; back < calls.length; back++) {
    const call = calls.fromEnd(back)!;
    if (call.key !== newest.key || !test(call)) break;
    run.push(call);
  }
  return run.reverse();
}
