import type { ModelMessage, Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { policyNeedsApproval, recordApprovalOf, wasApproved } from './approvals.js';
import {
  assertSentinelOption,
  guardToolCall,
  InvalidOptionError,
  isSentinelSessions,
  recordToolResult,
  toolRefusal,
  type Logger,
  type Monitor,
  type SentinelSource,
  type ToolRefusal,
} from '../../src/index.js';
import { createFailOpen } from './fail-open.js';
import { sessionOfCall, type ToolSessionId } from './tool-call-sessions.js';
import { toCoreToolCall } from './translate.js';

/**
 * Marks a {@link ToolCallRefusal}; a string, so the mark survives the JSON of UI messages.
 * @example
 * if (output.type === REFUSAL_TYPE) showWarning(output.reason);
 */
export const REFUSAL_TYPE = 'panoptes-refusal';

/**
 * What a guarded tool returns instead of running: the model reads `reason` as an error result; the app can read
 * who refused and why.
 */
export interface ToolCallRefusal extends ToolRefusal {
  type: typeof REFUSAL_TYPE;
}

/** Options of {@link guardTools}. Give a monitor, a sentinel, or both. */
export interface GuardToolsOptions {
  /** Refuses calls whose workflow state would break a critical constraint (`monitor.beforeTool`). */
  monitor?: Monitor;
  /**
   * Refuses calls the rulebase does not prove allowed (`sentinel.check`): a sentinel, or per-conversation sentinels
   * (`createSentinelSessions`), of which each call's session picks one.
   */
  sentinel?: SentinelSource;
  /**
   * The conversation, or a function of the execution options (e.g. of `experimental_context`). When absent,
   * each call is checked in the session of the response that asked for it, as `panoptesMiddleware` on the same
   * monitor recorded it; a call it cannot place (no middleware, or an id seen in two sessions) skips the monitor's
   * check, with a warning, and the monitor judges it at the next model call instead. Per-conversation sentinels
   * refuse a call they cannot place.
   * @default undefined
   */
  sessionId?: ToolSessionId;
  /** Receives the adapter's own failures, once per cause. @default console */
  logger?: Logger;
  /**
   * Ask the policy's confirmations of one call (`askable ... for tool` in the rulebase) through the AI SDK's tool
   * approval: a call the sentinel blocks on nothing but such confirmations gets `needsApproval`, so the host asks
   * the app's user with a `tool-approval-request`; an approving `tool-approval-response` records the confirmations
   * for that exact call when the approved call runs, and the call is checked again and runs. A denial never runs it.
   * Combined with a tool's own `needsApproval` (either one asks). With per-conversation sentinels, needs `sessionId`.
   * @default false
   */
  approvals?: boolean;
}

/** The tools `guardTools` returns: the same tools, whose output may also be a refusal. */
export type GuardedTools<TOOLS extends ToolSet> = {
  [NAME in keyof TOOLS]: TOOLS[NAME] extends Tool<infer INPUT, infer OUTPUT> ? Tool<INPUT, OUTPUT | ToolCallRefusal> : TOOLS[NAME];
};

/**
 * Wraps each tool's `execute` so a call is checked before it runs, by the core's `guardToolCall`: the monitor first
 * (workflow order), then the sentinel (the rules) as the monitor's guard, so a call the workflow refuses never
 * reaches the rules and a call the rules refuse never enters the workflow's trace. A refused call does not run; it
 * returns a {@link ToolCallRefusal}, which the model receives as an `error-text` tool result carrying the reason, so
 * it can correct course on its next call. Tools without `execute` (answered by the client) are returned as they are.
 *
 * The monitor fails open (a monitor error lets the rules decide alone); the sentinel fails closed (it denies what it
 * could not prove, by design of the guards).
 * @throws {InvalidOptionError} at construction when neither guard is given, or a guard or `sessionId` is malformed.
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: panoptesMiddleware({ monitor }) });
 * await generateText({ model, tools: guardTools({ issue_refund, verify_identity }, { monitor }), prompt, stopWhen: stepCountIs(8) });
 */
export function guardTools<TOOLS extends ToolSet>(tools: TOOLS, { monitor, sentinel, sessionId, logger = console, approvals = false }: GuardToolsOptions): GuardedTools<TOOLS> {
  if (monitor === undefined && sentinel === undefined) {
    throw new InvalidOptionError({ parameter: 'monitor', value: undefined, fix: 'Pass a monitor (createMonitor), a sentinel (createSentinel), or both.' });
  }
  if (monitor !== undefined && typeof monitor.beforeTool !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  assertSentinelOption(sentinel);
  if (sessionId !== undefined && !(typeof sessionId === 'function' || (typeof sessionId === 'string' && sessionId !== ''))) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: "Pass the session's id, a function of the tool's execution options, or nothing to use the session the middleware recorded." });
  }
  const perConversation = sentinel !== undefined && isSentinelSessions(sentinel);
  if (approvals && (sentinel === undefined || (perConversation && sessionId === undefined))) {
    throw new InvalidOptionError({ parameter: 'approvals', value: approvals, fix: 'Approvals record the confirmations of a sentinel: pass `sentinel` (and, with per-conversation sentinels, `sessionId`).' });
  }
  if (perConversation && monitor === undefined && sessionId === undefined) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: 'Per-conversation sentinels need to know each call\'s conversation: pass sessionId, or a monitor whose panoptesMiddleware wraps the model.' });
  }
  const failOpen = createFailOpen(logger);

  const rules = sentinel === undefined ? {} : { sentinel };
  const sessionOf = (options: ToolExecutionOptions, lookup: { forget?: boolean } = {}): string | undefined => {
    if (monitor === undefined && !perConversation) return undefined;
    const id = sessionOfCall(options, sessionId, monitor, lookup);
    if (id === undefined && monitor !== undefined) {
      failOpen.note('session lookup', `No session is known for tool call '${options.toolCallId}', so the monitor did not check it before it ran: pass sessionId, or wrap the model with panoptesMiddleware on the same monitor.`);
    }
    return id;
  };

  async function refusalOf(name: string, input: unknown, options: ToolExecutionOptions): Promise<ToolCallRefusal | undefined> {
    const call = toCoreToolCall(options.toolCallId, name, input);
    const id = sessionOf(options);
    const userMessages = sentinel === undefined ? undefined : userTexts(options.messages);
    const decision =
      id === undefined || monitor === undefined
        ? await guardToolCall(call, { ...rules, sessionId: id, userMessages })
        : await guardToolCall(call, {
            ...rules,
            userMessages,
            monitor,
            sessionId: id,
            onMonitorError: (error) => failOpen.note('The pre-emptive check (monitor.beforeTool)', 'The pre-emptive check (monitor.beforeTool) failed; the call goes on unchanged.', error),
          });
    return decision.allowed ? undefined : { type: REFUSAL_TYPE, ...toolRefusal(name, decision) };
  }

  // What became of a call that ran, for the sentinel: a write's confirmation consumed and its data invalidated, a
  // data tool's result recorded as facts. Only with a sentinel, and only for calls the guard let through.
  const resultOf: ResultRecorder | undefined =
    sentinel === undefined
      ? undefined
      : (name, input, options, outcome) =>
          recordToolResult(toCoreToolCall(options.toolCallId, name, input), outcome, {
            sentinel,
            sessionId: perConversation ? sessionOf(options, { forget: true }) : undefined,
            onError: (error) => failOpen.note('sentinel.recordResult', 'Recording a tool result for the policy failed; its facts expire with their TTL instead.', error),
          });

  // Native approvals need the session before the call runs (needsApproval), so they take it from `sessionId` only.
  const approvalSession = (options: ToolExecutionOptions) => (typeof sessionId === 'function' ? sessionId(options) : sessionId);
  const approval: Approval | undefined =
    approvals && sentinel !== undefined
      ? {
          needed: (name, input, options) => policyNeedsApproval(sentinel, approvalSession(options), name, input),
          recordIfApproved: async (name, input, options) => {
            if (!wasApproved(options.messages, options.toolCallId)) return;
            await recordApprovalOf(sentinel, approvalSession(options), name, input).catch((error: unknown) =>
              failOpen.note('recording an approval', 'Recording a tool approval for the policy failed; the call is checked without it.', error),
            );
          },
        }
      : undefined;

  const guarded: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) guarded[name] = guardTool(name, tool, refusalOf, resultOf, approval);
  return guarded as GuardedTools<TOOLS>;
}

/**
 * Whether a tool output is a refusal by `guardTools`.
 * @example
 * const refused = result.toolResults.filter((toolResult) => isToolCallRefusal(toolResult.output));
 */
export function isToolCallRefusal(value: unknown): value is ToolCallRefusal {
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === REFUSAL_TYPE && typeof (value as { reason?: unknown }).reason === 'string';
}

type AnyTool = ToolSet[string];
interface Approval {
  needed(name: string, input: unknown, options: ToolExecutionOptions): Promise<boolean>;
  recordIfApproved(name: string, input: unknown, options: ToolExecutionOptions): Promise<void>;
}
type ResultRecorder = (name: string, input: unknown, options: ToolExecutionOptions, outcome: { ok: true; result: unknown } | { ok: false }) => void;
type ModelOutputOptions = Parameters<NonNullable<Tool['toModelOutput']>>[0];
type ModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

function guardTool(
  name: string,
  tool: AnyTool,
  refusalOf: (name: string, input: unknown, options: ToolExecutionOptions) => Promise<ToolCallRefusal | undefined>,
  resultOf: ResultRecorder | undefined,
  approval: Approval | undefined,
): AnyTool {
  const original = tool.execute;
  if (typeof original !== 'function') return tool;
  const execute = original.bind(tool) as (input: unknown, options: ToolExecutionOptions) => unknown;
  // The host treats an execute that returns an async iterable as a streaming tool (preliminary results), so a
  // streaming tool stays a generator and any other stays a plain async function.
  const guardedExecute = isAsyncGeneratorFunction(original)
    ? async function* guardedStreamingExecute(input: unknown, options: ToolExecutionOptions) {
        await approval?.recordIfApproved(name, input, options);
        const refusal = await refusalOf(name, input, options);
        if (refusal !== undefined) {
          yield refusal;
          return;
        }
        // The last value a streaming tool yields is its output, as the host reads it.
        let last: unknown;
        try {
          for await (const value of execute(input, options) as AsyncIterable<unknown>) yield (last = value);
        } catch (error) {
          resultOf?.(name, input, options, { ok: false });
          throw error;
        }
        resultOf?.(name, input, options, { ok: true, result: last });
      }
    : async function guardedExecute(input: unknown, options: ToolExecutionOptions) {
        await approval?.recordIfApproved(name, input, options);
        const refusal = await refusalOf(name, input, options);
        if (refusal !== undefined) return refusal;
        let output: unknown;
        try {
          output = await execute(input, options);
        } catch (error) {
          resultOf?.(name, input, options, { ok: false }); // a failed write changed nothing
          throw error;
        }
        resultOf?.(name, input, options, { ok: true, result: output });
        return output;
      };
  const toModelOutput = async function guardedToModelOutput(options: ModelOutputOptions): Promise<ModelOutput> {
    if (isToolCallRefusal(options.output)) return { type: 'error-text', value: options.output.reason };
    if (tool.toModelOutput) return tool.toModelOutput(options);
    // The host's own default when a tool has no toModelOutput (ai: create-tool-model-output.ts).
    return typeof options.output === 'string' ? { type: 'text', value: options.output } : { type: 'json', value: options.output === undefined ? null : options.output };
  };
  if (!approval) return { ...tool, execute: guardedExecute, toModelOutput } as AnyTool;
  const own = tool.needsApproval;
  const needsApproval = async function guardedNeedsApproval(input: unknown, options: { toolCallId: string; messages: ModelMessage[]; experimental_context?: unknown }) {
    const asked = typeof own === 'function' ? await (own as (input: unknown, options: unknown) => boolean | PromiseLike<boolean>)(input, options) : own === true;
    return asked || approval.needed(name, input, options as ToolExecutionOptions);
  };
  return { ...tool, execute: guardedExecute, toModelOutput, needsApproval } as AnyTool;
}

function isAsyncGeneratorFunction(fn: unknown): boolean {
  return typeof fn === 'function' && fn.constructor?.name === 'AsyncGeneratorFunction';
}

/** The text of the user's messages, for strict mode's `given` parameters. */
function userTexts(messages: readonly ModelMessage[] | undefined): string[] {
  return (messages ?? []).flatMap((message) => {
    if (message.role !== 'user') return [];
    if (typeof message.content === 'string') return [message.content];
    return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  });
}
