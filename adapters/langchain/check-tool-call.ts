import { ToolMessage } from '@langchain/core/messages';
import { isGraphBubbleUp } from '@langchain/langgraph';
import type { BeforeToolResult, Monitor, Sentinel, ToolCall } from '../../src/index.js';
import type { FailOpen } from './fail-open.js';

/** What guards a tool call: the workflow monitor, the policy sentinel, or both. */
export interface ToolGuards {
  /** Refuses a call whose workflow state would break a critical constraint (`monitor.beforeTool`). */
  monitor?: Monitor | undefined;
  /** Refuses a call the rulebase does not prove allowed (`sentinel.check`). */
  sentinel?: Sentinel | undefined;
}

/** The outcome of {@link checkToolCall}: run the tool, or tell the model `text` instead. */
export type ToolDecision = { allowed: true } | { allowed: false; text: string; by: 'monitor' | 'sentinel' };


const ALLOW: BeforeToolResult = { action: 'allow', effects: [] };

/**
 * Decides one tool call. The sentinel goes first: it has no side effects, while an allowed `beforeTool` moves the
 * workflow into the call's state, which must only happen for a call that will run. The policy's own tools (query,
 * bind a context, confirm) are how the model answers a refusal, so the sentinel never guards them.
 *
 * Failures differ on purpose: the monitor fails open (DESIGN.md section 12), the sentinel fails closed (a write it
 * cannot prove must not happen).
 */
export async function checkToolCall({ monitor, sentinel }: ToolGuards, sessionId: string | undefined, call: ToolCall, failOpen: FailOpen): Promise<ToolDecision> {
  if (sentinel && !isPolicyTool(sentinel, call.name)) {
    const result = await sentinel.check(call.name, call.args).catch((error: unknown) => {
      if (isGraphBubbleUp(error)) throw error; // an interrupt is LangGraph's control flow, not a failed check
      return undefined;
    });
    if (!result) return { allowed: false, text: `${call.name} was not run: the policy could not be checked right now.`, by: 'sentinel' };
    if (!result.allowed) return { allowed: false, text: result.text, by: 'sentinel' };
  }
  if (monitor && sessionId !== undefined) {
    const decision = await failOpen('monitor.beforeTool', () => monitor.beforeTool(sessionId, call), ALLOW);
    if (decision.action === 'deny') return { allowed: false, text: decision.reason, by: 'monitor' };
  }
  return { allowed: true };
}

/**
 * The tool result the model reads instead of the tool's output: an error `ToolMessage` answering its call, as
 * LangChain's own tool-call limit does, so the model reads why and chooses again.
 */
export function refusalMessage(call: ToolCall, text: string): ToolMessage {
  return new ToolMessage({ content: text, tool_call_id: call.id ?? '', name: call.name, status: 'error' });
}

function isPolicyTool(sentinel: Sentinel, name: string): boolean {
  const { query, bindContext, confirm } = sentinel.toolNames;
  return name === query || name === bindContext || name === confirm;
}
