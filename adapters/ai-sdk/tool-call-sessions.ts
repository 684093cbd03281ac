/**
 * Which session asked for each tool call, per monitor, and what the monitor made of the response that asked.
 * `panoptesMiddleware` records the calls of every response it classifies; `guardTools` without a `sessionId` looks a
 * call up by its id, so the tools check against the session the middleware used (often a hash of the conversation,
 * which a tool cannot compute: it never sees the system prompt). Providers give tool calls unique ids; an id seen in
 * two sessions at once is ambiguous and matches none.
 * @module
 */

import type { ToolExecutionOptions } from 'ai';
import type { AfterModelResult, MaybePromise } from '../../src/index.js';

/** How an app names a tool call's session: the id, or a function of the call's execution options. */
export type ToolSessionId = string | ((options: ToolExecutionOptions) => string);

/** The monitor's answer to the response that asked for a call, once it has classified it; `undefined` when it failed. */
type Classified = MaybePromise<AfterModelResult | undefined>;

interface CallEntry {
  sessionId: string;
  classified?: Classified | undefined;
}

/** Calls remembered per monitor before the oldest are forgotten (calls that never ran leave entries behind). */
const LIMIT = 10_000;
const AMBIGUOUS = null;
const registry = new WeakMap<object, Map<string, CallEntry | typeof AMBIGUOUS>>();

/**
 * Remembers that `sessionId` asked for these tool calls, and (`classified`) the monitor's classification of the
 * response, from which {@link workflowWouldRefuse} reads its preview of each call.
 * @example
 * rememberToolCalls(monitor, 'ticket-42', [{ id: 'call_abc' }], monitor.afterModel('ticket-42', turn));
 */
export function rememberToolCalls(monitor: object, sessionId: string, toolCalls: ReadonlyArray<{ id?: string }>, classified?: Classified): void {
  if (toolCalls.length === 0) return;
  let calls = registry.get(monitor);
  if (calls === undefined) registry.set(monitor, (calls = new Map()));
  for (const { id } of toolCalls) {
    if (id === undefined) continue;
    const known = calls.get(id);
    calls.set(id, known === undefined || known?.sessionId === sessionId ? { sessionId, classified } : AMBIGUOUS);
  }
  for (const oldest of calls.keys()) {
    if (calls.size <= LIMIT) break;
    calls.delete(oldest);
  }
}

/**
 * The session that asked for a tool call; `undefined` when unknown or ambiguous. The call's execution forgets it
 * (each call runs once); a look before it (`needsApproval`) passes `keep`.
 * @example
 * sessionOfToolCall(monitor, 'call_abc') // 'ticket-42'
 */
export function sessionOfToolCall(monitor: object, toolCallId: string, { keep = false }: { keep?: boolean } = {}): string | undefined {
  const calls = registry.get(monitor);
  const entry = calls?.get(toolCallId);
  if (!keep) calls?.delete(toolCallId);
  return entry?.sessionId;
}

/**
 * Whether the workflow will refuse this call, as the monitor previewed it when it classified the response that asked
 * for it (`afterModel`'s `toolPreviews`: the check `beforeTool` will make, nothing used up); waits for that
 * classification when it is still running (a streamed response). `false` when nothing was recorded.
 */
export async function workflowWouldRefuse(monitor: object, toolCallId: string): Promise<boolean> {
  const classified = await registry.get(monitor)?.get(toolCallId)?.classified;
  return classified?.toolPreviews.find((preview) => preview.toolCallId === toolCallId)?.preview.refuse === true;
}

/**
 * The session a tool call belongs to: the app's `sessionId` (an id, or a function of the call), else the session
 * the middleware recorded for the call on `monitor`; `undefined` when neither places it.
 */
export function sessionOfCall(options: ToolExecutionOptions, sessionId: ToolSessionId | undefined, monitor: object | undefined, lookup: { keep?: boolean } = {}): string | undefined {
  if (typeof sessionId === 'function') return sessionId(options);
  return sessionId ?? (monitor === undefined ? undefined : sessionOfToolCall(monitor, options.toolCallId, lookup));
}
