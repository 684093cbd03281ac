/**
 * Which session asked for each tool call, per monitor. `panoptesMiddleware` records the calls of every response it
 * classifies; `guardTools` without a `sessionId` looks a call up by its id, so the tools check against the session
 * the middleware used (often a hash of the conversation, which a tool cannot compute: it never sees the system
 * prompt). Providers give tool calls unique ids; an id seen in two sessions at once is ambiguous and matches none.
 * @module
 */

import type { ToolExecutionOptions } from 'ai';

/** How an app names a tool call's session: the id, or a function of the call's execution options. */
export type ToolSessionId = string | ((options: ToolExecutionOptions) => string);

/** Calls remembered per monitor before the oldest are forgotten (calls that never ran leave entries behind). */
const LIMIT = 10_000;
const AMBIGUOUS = null;
const registry = new WeakMap<object, Map<string, string | typeof AMBIGUOUS>>();

/**
 * Remembers that `sessionId` asked for these tool calls.
 * @example
 * rememberToolCalls(monitor, 'ticket-42', [{ id: 'call_abc' }]);
 */
export function rememberToolCalls(monitor: object, sessionId: string, toolCalls: ReadonlyArray<{ id?: string }>): void {
  if (toolCalls.length === 0) return;
  let calls = registry.get(monitor);
  if (calls === undefined) registry.set(monitor, (calls = new Map()));
  for (const { id } of toolCalls) {
    if (id === undefined) continue;
    const known = calls.get(id);
    calls.set(id, known === undefined || known === sessionId ? sessionId : AMBIGUOUS);
  }
  for (const oldest of calls.keys()) {
    if (calls.size <= LIMIT) break;
    calls.delete(oldest);
  }
}

/**
 * The session that asked for a tool call; `undefined` when unknown or ambiguous. With `forget`, the call is forgotten
 * (it ran and its result is recorded), so a scripted model that reuses ids in another conversation is not ambiguous;
 * a call is asked for twice (before it runs, and when its result is recorded), so only the last asks to forget.
 * @example
 * sessionOfToolCall(monitor, 'call_abc') // 'ticket-42'
 */
export function sessionOfToolCall(monitor: object, toolCallId: string, { forget = false }: { forget?: boolean } = {}): string | undefined {
  const calls = registry.get(monitor);
  const sessionId = calls?.get(toolCallId);
  if (forget) calls?.delete(toolCallId);
  return sessionId ?? undefined;
}

/**
 * The session a tool call belongs to: the app's `sessionId` (an id, or a function of the call), else the session
 * the middleware recorded for the call on `monitor`; `undefined` when neither places it.
 */
export function sessionOfCall(options: ToolExecutionOptions, sessionId: ToolSessionId | undefined, monitor: object | undefined, lookup: { forget?: boolean } = {}): string | undefined {
  if (typeof sessionId === 'function') return sessionId(options);
  return sessionId ?? (monitor === undefined ? undefined : sessionOfToolCall(monitor, options.toolCallId, lookup));
}
