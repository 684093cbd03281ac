import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { BaseMessage } from '@langchain/core/messages';
import type { Serialized } from '@langchain/core/load/serializable';
import type { ChatGeneration, LLMResult } from '@langchain/core/outputs';
import { conversationSessionsOf, InvalidOptionError, type Logger, type Monitor } from '../../src/index.js';
import { createFailOpen, type FailOpen } from './fail-open.js';
import { resolveSessionId } from './session-id.js';
import { ToolCallRefusedError } from './tool-call-refused-error.js';
import { decideToolCall } from './tool-decision.js';
import { toAssistantTurn, toChatMessages } from './translate.js';

// Tool calls announced by a response, remembered until their tool starts: bounded for calls that never run.
const REMEMBERED_TOOL_CALLS = 10_000;

/** Options of {@link PanoptesCallbackHandler}. */
export interface PanoptesCallbackHandlerOptions {
  monitor: Monitor;
  /**
   * Refuse calls: throw `WorkflowViolationError` from `handleChatModelStart` when a block is due, and
   * `ToolCallRefusedError` from `handleToolStart` when the monitor refuses the tool call. Off, the handler only
   * observes. LangChain awaits a handler that raises, so the refusal happens before the call.
   * @default false
   */
  raiseError?: boolean;
  /**
   * The session of every run observed. Without it, the run's `metadata.session_id`, then `metadata.thread_id`
   * (LangGraph copies `configurable.thread_id` there; a plain chain does not, since LangChain gives callback handlers
   * the run's metadata but not its `configurable`: pass `metadata: { thread_id }` there), else the session whose
   * recorded history the model call's messages continue (a new conversation starts one).
   */
  sessionId?: string;
  /**
   * Run the handler in the foreground, so the monitor has seen a response before the tools it asked for start.
   * LangChain otherwise queues handlers in the background (unless `LANGCHAIN_CALLBACKS_BACKGROUND=false`). Forced
   * on by `raiseError`.
   * @default true
   */
  awaitHandlers?: boolean;
  /** Where Panoptes reports its own failures, once per place. @default console */
  logger?: Logger;
}

/**
 * Feeds the monitor from any LangChain runnable (chains, plain chat models, agents you did not build with
 * `createAgent`): chat model starts and ends are classified and move the workflow.
 *
 * Callbacks cannot edit a request, so interventions (guidance, reminders, notes) are never applied here: use
 * `panoptesMiddleware` for that. With `raiseError: true` the handler can refuse: a model call when a block is due,
 * a tool call when the monitor's pre-emptive check refuses it. Interventions due on a call it cannot edit are
 * dropped (and counted, so repeated ones escalate to a block). Without `raiseError` it only observes: tool calls
 * enter the workflow as the calls the model announced. Nor can it change an answer: one that breaks a critical
 * constraint has reached the caller when the handler sees it, so it is recorded as delivered (never as withheld), and
 * the block falls on the next model call. `panoptesMiddleware` withholds such an answer instead.
 * @throws {InvalidOptionError} at construction when `monitor` is missing.
 * @example
 * const handler = new PanoptesCallbackHandler({ monitor, raiseError: true });
 * await chain.invoke(input, { callbacks: [handler], metadata: { session_id: 'c-42' } });
 */
export class PanoptesCallbackHandler extends BaseCallbackHandler {
  name = 'PanoptesCallbackHandler';
  readonly #monitor: Monitor;
  readonly #sessionId: string | undefined;
  readonly #logger: Logger;
  readonly #failOpen: FailOpen;
  readonly #runSessions = new Map<string, string>();
  readonly #toolCallSessions = new Map<string, string>();
  #warnedUnapplied = false;

  constructor({ monitor, raiseError = false, sessionId, awaitHandlers = true, logger = console }: PanoptesCallbackHandlerOptions) {
    super({ raiseError });
    if (!monitor || typeof monitor.afterModel !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
    this.awaitHandlers = raiseError || awaitHandlers;
    this.#monitor = monitor;
    this.#sessionId = sessionId;
    this.#logger = logger;
    this.#failOpen = createFailOpen(logger);
  }

  /** The same handler, as LangChain's tracers do: the runs and tool calls it follows span child callback managers. */
  override copy(): this {
    return this;
  }

  override async handleChatModelStart(_llm: Serialized, prompts: BaseMessage[][], runId: string, _parentRunId?: string, _extra?: Record<string, unknown>, _tags?: string[], metadata?: Record<string, unknown>): Promise<void> {
    const messages = toChatMessages(prompts[0] ?? []);
    const sessionId = this.#sessionOf(metadata, () => conversationSessionsOf(this.#monitor).sessionOf(messages));
    this.#runSessions.set(runId, sessionId);
    if (!this.raiseError) return;
    const before = await this.#failOpen('monitor.beforeModel', () => this.#monitor.beforeModel(sessionId, { messages }), undefined);
    if (before?.action === 'block') throw before.error;
    if (before && before.interventions.length > 0 && !this.#warnedUnapplied) {
      this.#warnedUnapplied = true;
      this.#logger.warn('[panoptes] Interventions were due on a call a callback handler cannot edit; they were dropped. Use panoptesMiddleware to apply them.');
    }
  }

  override async handleLLMEnd(output: LLMResult, runId: string): Promise<void> {
    const sessionId = this.#runSessions.get(runId);
    this.#runSessions.delete(runId);
    const message = (output.generations[0]?.[0] as ChatGeneration | undefined)?.message;
    if (sessionId === undefined || !message || message.getType() !== 'ai') return;
    const turn = toAssistantTurn(message);
    for (const call of turn.toolCalls) if (call.id) this.#rememberToolCall(call.id, sessionId);
    await this.#failOpen('monitor.afterModel', () => this.#monitor.afterModel(sessionId, turn), undefined);
    conversationSessionsOf(this.#monitor).answered(sessionId, turn);
  }

  override async handleLLMError(_error: unknown, runId: string): Promise<void> {
    this.#runSessions.delete(runId);
  }

  override async handleToolStart(tool: Serialized, input: string, _runId: string, _parentRunId?: string, _tags?: string[], metadata?: Record<string, unknown>, runName?: string, toolCallId?: string): Promise<void> {
    const announced = toolCallId === undefined ? undefined : this.#toolCallSessions.get(toolCallId);
    if (toolCallId !== undefined) this.#toolCallSessions.delete(toolCallId);
    // Observing only: the announced call enters the workflow at the next model call, as a call that ran.
    if (!this.raiseError) return;
    const sessionId = this.#sessionOf(metadata, () => announced ?? '');
    const name = runName ?? (tool as { name?: string }).name ?? tool.id.at(-1) ?? '';
    if (sessionId === '' || name === '') return;
    const call = { ...(toolCallId ? { id: toolCallId } : {}), name, args: parseArgs(input) };
    const decision = await decideToolCall(call, { monitor: this.#monitor, sessionId }, this.#failOpen);
    if (!decision.allowed) throw new ToolCallRefusedError({ toolName: name, reason: decision.reason, constraints: decision.constraints, sessionId });
  }

  #sessionOf(metadata: Record<string, unknown> | undefined, fallback: () => string): string {
    return resolveSessionId({ option: this.#sessionId, metadataSessionId: metadata?.session_id, threadId: metadata?.thread_id, fallback });
  }

  #rememberToolCall(id: string, sessionId: string): void {
    this.#toolCallSessions.set(id, sessionId);
    if (this.#toolCallSessions.size > REMEMBERED_TOOL_CALLS) this.#toolCallSessions.delete(this.#toolCallSessions.keys().next().value!);
  }
}

/** Tool input arrives as JSON text; anything else is treated as no arguments, never as a crash. */
function parseArgs(input: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(input);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
