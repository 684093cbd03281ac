import { ToolMessage } from '@langchain/core/messages';
import { guardToolCall, type Monitor, type Sentinel, type ToolCall, type ToolCallDecision } from '../../src/index.js';
import type { FailOpen } from './fail-open.js';

/** What guards a tool call in the LangChain hosts: the workflow monitor, the policy sentinel, or both. */
export interface ToolGuards {
  monitor?: Monitor | undefined;
  sentinel?: Sentinel | undefined;
  /** The monitor's session; a call without one is not checked by the monitor. */
  sessionId?: string | undefined;
}

/**
 * The core's verdict on one tool call: `guardToolCall` asks the workflow, then the rules as its guard, so a call the
 * workflow refuses never reaches the rules and a call the rules refuse never enters the trace. Two things only the
 * host side knows are settled here:
 * - the sentinel's own tools (query the policy, set a context, record a confirmation) are how the model answers a
 *   refusal, and they run through the same tool node as the guarded tools, so the rules never judge them (with the
 *   default `unguardedTools: 'deny'` they would refuse them);
 * - a monitor that throws lets the rules decide alone: the monitor fails open (DESIGN.md section 12), the rules
 *   never do. LangGraph's interrupts are rethrown by `failOpen`.
 */
export async function decideToolCall(call: ToolCall, { monitor, sentinel, sessionId }: ToolGuards, failOpen: FailOpen): Promise<ToolCallDecision> {
  const rules = sentinel && !isPolicyTool(sentinel, call.name) ? { sentinel } : {};
  if (!monitor || sessionId === undefined) return guardToolCall(call, rules);
  const decision = await failOpen('monitor.beforeTool', () => guardToolCall(call, { ...rules, monitor, sessionId }), undefined);
  return decision ?? guardToolCall(call, rules);
}

/**
 * The tool result the model reads instead of the tool's output: an error `ToolMessage` answering its call, as
 * LangChain's own tool-call limit does, so the model reads why and chooses again.
 */
export function refusalMessage(call: ToolCall, reason: string): ToolMessage {
  return new ToolMessage({ content: reason, tool_call_id: call.id ?? '', name: call.name, status: 'error' });
}

function isPolicyTool(sentinel: Sentinel, name: string): boolean {
  const { query, bindContext, confirm } = sentinel.toolNames;
  return name === query || name === bindContext || name === confirm;
}
