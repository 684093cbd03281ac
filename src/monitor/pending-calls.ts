import { normaliseToolName } from '../messages/index.js';
import type { ToolCall } from '../messages/index.js';
import { previewEnter, transition, type EnterPreview, type Workflow, type WorkflowSnapshot } from '../workflow/index.js';
import type { PendingToolState } from './types.js';

/**
 * The announced call a checked tool call is, as its index in `pending`, or -1. By id when the call has one: a call
 * with an id is never taken for an announced call with another id, even of the same tool (a late check of a call
 * whose state already entered, one of `ran`, would otherwise take the next response's call of that tool).
 * By name, the first call not yet checked, only where ids are missing (a call without one, or an announcement
 * without one), and never for a call of `ran`.
 */
export function pendingIndex(pending: readonly PendingToolState[], call: ToolCall, ran: readonly string[] | undefined): number {
  if (call.id !== undefined) {
    const byId = pending.findIndex((entry) => entry.toolCallId === call.id);
    if (byId >= 0 || ran?.includes(call.id)) return byId;
  }
  // By name as the classifier matched it: a call checked as `Issue_Refund` is the one announced as `issue_refund`.
  const name = normaliseToolName(call.name);
  return pending.findIndex((entry) => !entry.allowed && normaliseToolName(entry.toolName) === name && (call.id === undefined || entry.toolCallId === undefined));
}

/**
 * The pre-emptive check of an announced call's state: a `precedence` or `until` target entered after its response
 * was generated (by another call of the response) does not let it through (`previewEnter`'s `seenLength`).
 */
export function previewCall(workflow: Workflow, snapshot: WorkflowSnapshot, pending: PendingToolState): EnterPreview {
  return previewEnter(workflow, snapshot, pending.state, { confidence: pending.confidence, method: 'tool_call', ...(pending.seen === undefined ? {} : { seenLength: pending.seen }), ...(pending.args === undefined ? {} : { args: pending.args }) });
}

/**
 * The snapshot once the first `count` announced calls that are expected to run have entered, in call order: each one
 * checked and allowed, and each unchecked one its preview lets through. A call is checked against it, so its states
 * follow the calls before it whatever order the checks come in. `visit` sees each call's preview.
 * Costs nothing for a call checked in call order (the ones before it have entered already).
 */
export function runAhead(workflow: Workflow, snapshot: WorkflowSnapshot, pending: readonly PendingToolState[], count: number, visit?: (entry: PendingToolState, preview: EnterPreview) => void): WorkflowSnapshot {
  let ahead = snapshot;
  for (let index = 0; index < count; index++) {
    const entry = pending[index]!;
    let runs = entry.allowed === true;
    if (!runs || visit) {
      const preview = previewCall(workflow, ahead, entry);
      visit?.(entry, preview);
      runs ||= !preview.refuse;
    }
    if (runs) ahead = transition(workflow, ahead, { type: 'enter', state: entry.state, at: ahead.updatedAt, confidence: entry.confidence, method: 'tool_call', ...(entry.args === undefined ? {} : { args: entry.args }) }).snapshot;
  }
  return ahead;
}
