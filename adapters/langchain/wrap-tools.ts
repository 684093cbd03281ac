import type { RunnableConfig } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { isGraphBubbleUp } from '@langchain/langgraph';
import { assertSentinelOption, InvalidOptionError, isSentinelSessions, type Logger, type Monitor, type SentinelSource } from '../../src/index.js';
import { createFailOpen } from './fail-open.js';
import { namedSessionId } from './session-id.js';
import { decideToolCall, refusalMessage, runRecorded } from './tool-decision.js';
import { toToolCall } from './translate.js';

/** Options of {@link wrapTools}. Give a `sentinel`, a `monitor`, or both. */
export interface WrapToolsOptions {
  /** Proves each call allowed by the rulebase before it runs: a sentinel, or per-conversation sentinels (`createSentinelSessions`). */
  sentinel?: SentinelSource;
  /** Runs the monitor's pre-emptive check (`beforeTool`) before each call. */
  monitor?: Monitor;
  /**
   * The conversation: the monitor's session and, with per-conversation sentinels, the sentinel's. Without it, the
   * call's `configurable.thread_id`, then `metadata.session_id`; a call with none of these is not checked by the
   * monitor, and per-conversation sentinels refuse it.
   */
  sessionId?: string;
  /** Where Panoptes reports its own failures, once per place. @default console */
  logger?: Logger;
}

/**
 * Guards LangChain tools for use outside `createAgent` (a LangGraph `ToolNode`, your own loop): before a tool runs,
 * the monitor must not refuse the call and then the sentinel must prove it allowed (the core's `guardToolCall`), so
 * a call the sentinel refuses never enters the workflow's trace. A refused call never runs; invoked
 * with a tool call (as `ToolNode` does), the tool answers with an error `ToolMessage` telling the model what to do
 * instead; invoked with plain arguments, it returns that text.
 *
 * Each guarded tool inherits everything else from its original (name, schema, `returnDirect`, response format);
 * only `invoke` (and the deprecated `call`) are guarded, and the other ways of running a tool go through `invoke`.
 * @throws {InvalidOptionError} when neither `sentinel` nor `monitor` is given, or `sentinel` is not one.
 * @example
 * const guarded = wrapTools([cancelReservation, getReservation], { sentinel });
 * const tools = new ToolNode([...guarded, ...policyTools(sentinel)]);
 */
export function wrapTools<Tool extends StructuredToolInterface>(tools: readonly Tool[], { sentinel, monitor, sessionId, logger = console }: WrapToolsOptions): Tool[] {
  if (!sentinel && !monitor) throw new InvalidOptionError({ parameter: 'sentinel', value: sentinel, fix: 'Pass a sentinel from createSentinel(), a monitor from createMonitor(), or both.' });
  assertSentinelOption(sentinel);
  const needsSession = monitor !== undefined || (sentinel !== undefined && isSentinelSessions(sentinel));
  const failOpen = createFailOpen(logger, isGraphBubbleUp);
  /** Runs the call when the guards allow it (telling the sentinel what became of it), or answers with the refusal. */
  const guardedRun = async (original: Tool, input: unknown, config: RunnableConfig | undefined, run: () => Promise<unknown>) => {
    const toolCall = isToolCall(input) ? input : { name: original.name, args: input, id: (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id };
    const call = toToolCall(toolCall);
    const session = needsSession ? namedSessionId(sessionId, config) : undefined;
    const decision = await decideToolCall(call, { monitor, sentinel, sessionId: session }, failOpen);
    if (!decision.allowed) return call.id ? refusalMessage(call, decision.reason) : decision.reason;
    return runRecorded(call, run, { sentinel, sessionId: session }, (error) => void failOpen('sentinel.recordResult', () => Promise.reject(error), undefined));
  };
  return tools.map((original) => {
    const guarded = Object.create(original) as Tool;
    // `invoke` is the Runnable entry point (ToolNode, batch, stream); the deprecated `call` is guarded too. Each runs
    // the original's own method, so a call is checked once whichever way it comes in.
    guarded.invoke = async function guardedInvoke(input: unknown, config?: RunnableConfig) {
      return guardedRun(original, input, config, () => original.invoke(input as never, config as never));
    } as Tool['invoke'];
    guarded.call = async function guardedCall(input: unknown, config?: unknown, tags?: string[]) {
      const runnableConfig = typeof config === 'object' && config !== null && !Array.isArray(config) ? (config as RunnableConfig) : undefined;
      return guardedRun(original, input, runnableConfig, () => original.call(input as never, config as never, tags));
    } as Tool['call'];
    return guarded;
  });
}

function isToolCall(input: unknown): input is { id?: string; name: string; args: unknown; type?: 'tool_call' } {
  return typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'tool_call' && typeof (input as { name?: unknown }).name === 'string';
}
