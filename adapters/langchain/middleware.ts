import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { isGraphBubbleUp } from '@langchain/langgraph';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import {
  connectWorkflowStates,
  andThen,
  assertOnViolatingText,
  assertSentinelOption,
  attempt,
  InvalidOptionError,
  isSentinelSessions,
  lazyModelRequest,
  offeredToolNames,
  settleAnswer,
  syncFirst,
  systemTimers,
  within,
  WorkflowViolationError,
  type AfterModelResult,
  type BeforeModelResult,
  type MaybePromise,
  type ToolGuard,
  type ChatMessage,
  type Logger,
  type Monitor,
  type OnViolatingText,
  type PanoptesError,
  type SentinelSource,
  type SessionReport,
  assertFactSummaryOption,
  FACT_SUMMARY_FAILURE,
  factSummaryBlock,
  createConversationJudge,
  DEFAULT_USER_MESSAGE,
  judgmentReporter,
  type Judge,
  type JudgedOutcome,
  type OnJudgment,
} from '../../src/index.js';
import { graphSessionAccess, onGraphSession, type GraphMonitor } from '../langgraph/graph-monitor.js';
import { modelAnswerWithSession, panoptesAgentState, sessionTextOf, toolResultWithSession } from './agent-state-session.js';
import { blockedResponse, blockOf, defaultBlockMessage, type BlockMessage } from './block-message.js';
import { createSessionFinder } from './conversation-session.js';
import { createFailureLog, failOpenWith } from './fail-open.js';
import { requestToChatMessages, withChatMessages, withSystemText } from './model-request.js';
import { policyToolsFindingSession } from './policy-tools.js';
import { namedSessionId } from './session-id.js';
import { refusalMessages, restorationForToolCall, unrestoredCalls, withoutRefusedCalls, withRefusedCalls, withRestoration, withRestoredAnswers } from './refused-calls.js';
import { decideToolCall, refusalMessage, refusalsOfAnswer, runRecorded } from './tool-decision.js';
import { assertJudgeOption, judgeCallBeforeRun, judgedRefusalText, judgedResponseNote, judgeResponse, judgesScope, type HostJudge } from './judged-calls.js';
import { createSessionNotes } from './session-notes.js';
import { toAssistantTurn, toChatMessage, toChatMessages, toToolCall } from './translate.js';
import { judgedWithheldMessage, REGENERATING, withheldMessage } from './withheld-message.js';

/** Default budget of the `onReport` hook, in milliseconds. */
const ON_REPORT_TIMEOUT_MS = 5000;

/** Options of {@link panoptesMiddleware}. Give a `monitor`, a `sentinel`, or both. */
export interface PanoptesMiddlewareOptions {
  /**
   * The workflow monitor: interventions before each model call, classification after it, refusals before tools.
   * One from `createGraphMonitor` (`panoptes/langgraph`) keeps each thread's session in the agent's state (a
   * `panoptes` field, JSON text), so the agent's checkpointer persists it and a thread continued by another process
   * keeps its verdicts; any other monitor keeps its sessions in its own store, which by default is one process's
   * memory.
   */
  monitor?: Monitor;
  /**
   * The policy sentinel: every tool call is proved allowed before it runs, and the known facts go into the system
   * prompt. For an agent that serves many threads, per-conversation sentinels (`createSentinelSessions`): each run
   * then uses its session's sentinel, so one thread's facts never decide another's calls.
   */
  sentinel?: SentinelSource;
  /**
   * The session of every run through this middleware. Without it, each run's `configurable.thread_id` names the
   * session, then its `metadata.session_id`; a run that names none continues the session whose recorded history
   * its messages carry (a new conversation starts one, and two conversations never share one once they differ).
   */
  sessionId?: string;
  /**
   * What a hard block does: end the run with an AI message saying why, or throw the monitor's error
   * (`WorkflowViolationError`, or `LoopDetectedError` when a loop reached stop) out of
   * `agent.invoke` (the thread keeps that message) from the `afterModel` hook.
   * @default 'end'
   */
  onBlock?: 'end' | 'throw';
  /** The text of the AI message a blocked run ends with. @default `[Panoptes] This run was stopped: <intervention text>` */
  blockMessage?: BlockMessage;
  /**
   * What becomes of an answer the monitor withholds (one breaking a critical constraint, or one whose intervention
   * is a `block:`): `replace` puts an AI message with the workflow's user message in its place (the thread keeps
   * that, not the answer); `regenerate` first asks the model once more with the guidance and keeps a compliant
   * second answer; `deliver` lets it through, and a critical violation blocks the next call instead. Tokens streamed
   * with `streamMode: 'messages'` have left before the answer is whole: only the final state is withheld.
   * @default 'replace'
   */
  onViolatingText?: OnViolatingText;
  /** Receives the session's report at the end of every run (the final one when `closeSession` is set). */
  onReport?: (report: SessionReport) => void | Promise<void>;
  /**
   * How long the run waits for `onReport`, in milliseconds: past it the run ends without waiting any longer, and the
   * timeout is logged once (the hook keeps running in the background). A hook that throws or rejects is logged too.
   * @default 5000
   */
  onReportTimeoutMs?: number;
  /**
   * Close the session at the end of each run, so eventual constraints get their final verdicts. Leave it off for a
   * thread that continues across runs (a chat): a closed session starts over on its next call.
   * @default false
   */
  closeSession?: boolean;
  /**
   * Register the sentinel's tools for the model (query the policy, set a context, record a confirmation), which the
   * texts of its refusals tell the model to call.
   * @default true when a sentinel is given
   */
  policyTools?: boolean;
  /**
   * Put the sentinel's known facts (`facts.summarize()`, under `[KNOWN FACTS]`) at the end of the system prompt of
   * every model call, read afresh each time. `false` leaves the prompt as the agent built it.
   * @default true when a sentinel is given
   */
  factSummary?: boolean;
  /**
   * An LLM judge (`createJudge`), the step after the rules. `tool_call` rubrics judge each call the workflow and the
   * rules allowed, before it runs: `deny` (a `block` or `intervene` rubric, or `on_error: deny`) refuses it with an
   * error `ToolMessage` saying why, `ask` refuses it with the question for the user (this middleware has no approval
   * path of its own), `warn` lets it run and reports it. `turn` rubrics judge an answer without tool calls before it
   * is returned, as `onViolatingText` says: `replace` withholds it (the thread keeps `I'm sorry...`), `regenerate`
   * asks the model once more with the finding, `deliver` lets it out and tells the model on its next call.
   * `conversation` rubrics run in the background every `every_turns` answers (or after a warning) and reach the
   * model on its next call.
   */
  judge?: Judge;
  /** Told every judged outcome that did not simply pass (a fail, a warning, an error); user code, its throws caught. */
  onJudgment?: OnJudgment;
  /** The middleware's name in the agent. @default 'PanoptesMiddleware' */
  name?: string;
  /** Where Panoptes reports its own failures, once per place. @default console */
  logger?: Logger;
}

/**
 * `createAgent` middleware that makes the agent follow its workflow and its policy.
 *
 * - `wrapModelCall`: applies the monitor's pending interventions to this call's request only (the thread's stored
 *   history never holds a correction), adds the sentinel's fact summary to the system prompt, calls the model, and
 *   classifies the response. A hard block skips the model and answers with an AI message saying why; the answer
 *   has no tool calls, so the agent's own routing ends the run there. An answer the monitor withholds (it breaks a
 *   critical constraint) never leaves the call: an AI message with the workflow's user message takes its place, or,
 *   with `onViolatingText: 'regenerate'`, the model's second answer when it complies. Then it refuses at once the
 *   answer's calls the guards refuse (the monitor's preview or the rules say no; such a call gets the real check now,
 *   recorded once), so no later middleware sees them: `humanInTheLoopMiddleware`, listed before or after this one,
 *   never asks a human about a call Panoptes refuses. Every other call is checked when it runs.
 * - `afterModel`: when every call of the answer was refused, puts them back in the answer with their error
 *   `ToolMessage`s and sends the run back to the model. With `onBlock: 'throw'`, throws `WorkflowViolationError`
 *   on a blocked answer, unwrapped (an error thrown inside `wrapModelCall` would reach the caller wrapped in
 *   LangChain's `MiddlewareError`). The hook is one graph step (about 1 ms) per model call.
 * - `wrapToolCall`: asks the workflow (the monitor's pre-emptive check), then the sentinel's rules (the core's
 *   `guardToolCall`). A refused call never runs, and one the rules refuse never enters the workflow's trace; the
 *   model receives an error `ToolMessage` (status `error`, the reason as content) saying what to do instead. The
 *   first result of an answer some of whose calls were refused at once also puts those calls back in the answer,
 *   with their refusals.
 * - With a `judge`: its `tool_call` rubrics judge a call after the rules, inside the monitor's guard (a refusal is
 *   an error `ToolMessage`, like the rules'); its `turn` rubrics judge an answer without tool calls before
 *   `wrapModelCall` returns it (withheld, asked for again or delivered as `onViolatingText` says); its
 *   `conversation` rubrics run in the background. What it found about an answer already past reaches the model on
 *   the session's next call.
 * - `afterAgent` (with `onReport` or `closeSession`): publishes the session's report.
 * - With a graph monitor, `wrapModelCall` and `wrapToolCall` first take the thread's session from agent state, and
 *   return it with their result (a `Command` that writes `panoptes`) when their step changed it.
 *
 * Panoptes' own failures (an embedder down, a store timing out) never fail the agent: the call goes on unchecked
 * and the failure is logged once.
 * @throws {InvalidOptionError} at construction, when neither `monitor` nor `sentinel` is given or an option is invalid.
 * @example
 * const monitor = createMonitor({ workflow: await loadWorkflow('examples/workflows/customer-support.yaml') });
 * const agent = createAgent({ model, tools, middleware: [panoptesMiddleware({ monitor })] });
 * await agent.invoke({ messages: [new HumanMessage('Refund order A1')] }, { configurable: { thread_id: 'c-42' } });
 */
export function panoptesMiddleware(options: PanoptesMiddlewareOptions & { monitor: GraphMonitor }): AgentMiddleware<typeof panoptesAgentState>;
export function panoptesMiddleware(options: PanoptesMiddlewareOptions): AgentMiddleware;
export function panoptesMiddleware({
  monitor,
  sentinel,
  sessionId,
  onBlock = 'end',
  blockMessage = defaultBlockMessage,
  onViolatingText = 'replace',
  onReport,
  onReportTimeoutMs = ON_REPORT_TIMEOUT_MS,
  closeSession = false,
  policyTools: withPolicyTools = sentinel !== undefined,
  factSummary = sentinel !== undefined,
  judge,
  onJudgment,
  name = 'PanoptesMiddleware',
  logger = console,
}: PanoptesMiddlewareOptions): AgentMiddleware {
  validate({ monitor, sentinel, sessionId, onBlock, withPolicyTools, factSummary });
  assertJudgeOption(judge);
  assertOnViolatingText(onViolatingText);
  // The workflow's states become facts of the rules (`said(State)`).
  if (monitor && sentinel) connectWorkflowStates(monitor, sentinel);
  if (!(typeof onReportTimeoutMs === 'number' && onReportTimeoutMs > 0 && onReportTimeoutMs <= 2_147_483_647)) {
    throw new InvalidOptionError({ parameter: 'onReportTimeoutMs', value: onReportTimeoutMs, fix: 'Pass a positive number of milliseconds; the default is 5000.' });
  }
  const failed = createFailureLog(logger, isGraphBubbleUp);
  const failOpen = failOpenWith(failed);
  const sessions = createSessionFinder(sessionId, (monitor ?? sentinel)!);
  // The monitor's own error for a block (WorkflowViolationError, or LoopDetectedError for a loop), kept from
  // wrapModelCall until afterModel throws it: the block message in the thread can only carry plain data.
  const blockErrors = new Map<string, PanoptesError>();
  const perConversation = sentinel !== undefined && isSentinelSessions(sentinel);
  // The session of each policy tool call in flight, by tool call id, from wrapToolCall to the tool.
  const policyCallSessions = new Map<string, string>();
  const policyToolNames = new Set<string>(sentinel ? Object.values(sentinel.toolNames) : []);
  const calls = monitor && syncFirst(monitor);
  // A monitor from createGraphMonitor keeps each thread's session in agent state, where the checkpointer persists it.
  const agentState = monitor && graphSessionAccess(monitor);
  // Calls the check at the model's answer let in (a preview had said no): their state is entered, so their tool
  // call must not check them again.
  const checkedCalls = new Set<string>();
  // The judge, after the rules: tool calls before they run, answers before they are returned, the conversation in
  // the background. Its findings about a past answer reach the model as notes on the session's next call.
  const hostJudge: HostJudge | undefined = judge && { judge, report: judgmentReporter({ logger, onJudgment }), logger };
  const judgesCalls = judgesScope(judge, 'tool_call');
  const judgesTurns = judgesScope(judge, 'turn');
  const conversation = judge && judgesScope(judge, 'conversation') ? createConversationJudge(judge, { logger, ...(onJudgment ? { onJudgment } : {}) }) : undefined;
  const notes = createSessionNotes();
  /** Sessions where a rubric warned since their last answer: their conversation rubrics are due at once. */
  const warned = createSessionNotes();
  /** The judge as the check after the rules, inside the monitor's guard: a call it refuses never enters the trace. */
  const judgeGuard = (session: string | undefined, messages: readonly BaseMessage[]): ToolGuard | undefined =>
    judgesCalls
      ? async (call) => {
          if (policyToolNames.has(call.name)) return { allowed: true }; // the sentinel's own tools are never judged
          const outcome = await judgeCallBeforeRun(hostJudge!, call, messages, session);
          if (outcome.warnings.length > 0 && session !== undefined) warned.add(session, 'warned');
          return outcome.decision === 'allow' ? { allowed: true } : { allowed: false, reason: judgedRefusalText(call, outcome) };
        }
      : undefined;

  return createMiddleware({
    name,
    ...(agentState ? { stateSchema: panoptesAgentState } : {}),
    ...(sentinel && withPolicyTools ? { tools: policyToolsFindingSession(sentinel, (config) => namedSessionId(sessionId, config) ?? policyCallSessions.get(config.toolCall?.id ?? ''), logger) } : {}),

    // Sync-first: with a session in memory the monitor answers at once, and the call pays no promise of Panoptes'
    // own beyond the one that waits for the model (each costs microseconds inside an agent's run).
    wrapModelCall: function panoptesModelCall(original, handler) {
      // The model reads every answer whole, with the refusals of the calls refused at once (refused-calls.ts).
      const restored = withRestoredAnswers(original.messages);
      const request = restored === original.messages ? original : { ...original, messages: restored };
      // The thread in the core's form, converted at most once: to place a call that names no session, and for the
      // monitor when something is due.
      let thread: ChatMessage[] | undefined;
      const threadOf = () => (thread ??= toChatMessages(request.messages));
      const session = sessions.ofModelCall(request.runtime.configurable, threadOf);
      // The facts as they are now, read afresh for each call (a regenerated one too); a summary that fails is left out.
      const facts = () => (sentinel && factSummary ? factSummaryBlock(sentinel, session, (error) => failed(FACT_SUMMARY_FAILURE, error)) : undefined);
      // The judge's notes for this session (a finding about its last answer, a review of the conversation), taken once.
      const judged = judge ? [notes.take(session), conversation?.takeGuidance(session)].filter((note) => note !== undefined).join('\n') : '';
      const invoke = (next: typeof request) => {
        const block = facts();
        const noted = judged === '' ? next : withSystemText(next, judged);
        return handler(block === undefined ? noted : withSystemText(noted, block));
      };
      const callModel = (next: typeof request) => {
        const offered = offeredToolNames(next.tools);
        const answerOf = (response: AIMessage): Answer => ({ response, turn: toAssistantTurn(response, offered) });
        // Recorded (the answer delivered) once the monitor has classified it, so a request that continues it finds
        // that step done; the agent gets the answer without the calls refused at once.
        const answered = ({ response, turn }: Answer, classified?: AfterModelResult) =>
          andThen(refusalsOfAnswer(response, { monitor, sentinel, sessionId: session, messages: next.messages, afterRules: judgeGuard(session, next.messages) }, classified, offered, failOpen), ({ refused, allowed }) => {
            for (const id of allowed) checkedCalls.add(checkedCall(session, id));
            sessions.answered(session, turn);
            conversation?.turn(session, { messages: () => [...toChatMessages(next.messages), toChatMessage(response)], warned: warned.take(session) !== undefined });
            return refused.length === 0 ? response : withoutRefusedCalls(response, refused);
          });
        // The monitor classifies an answer the workflow may withhold (settleAnswer); then the judge reads an answer
        // with text and no tool calls (a calling answer is judged by its calls, before they run).
        const classifyRetry = (second: Answer): MaybePromise<Settled> =>
          !calls
            ? { answer: second }
            : attempt(
                () => calls.afterModel(session, second.turn, { withhold: true, regenerated: true }),
                (classified): Settled => (classified.withheld ? { answer: answerOf(withheldMessage(second.response, classified.withheld)), classified, replaced: true } : { answer: second, classified }),
                (error) => (failed('monitor.afterModel', error), { answer: second }),
              );
        const judgeAnswer = (settled: Settled, retried = false): MaybePromise<Settled> => {
          const { answer } = settled;
          if (settled.replaced || (answer.response.tool_calls?.length ?? 0) > 0 || answer.turn.content.trim() === '') return settled;
          return andThen(judgeResponse(hostJudge!, answer.turn.content, next.messages, session), (outcome): MaybePromise<Settled> => {
            if (outcome && outcome.warnings.length > 0) warned.add(session, 'warned');
            if (!outcome || outcome.decision === 'allow') return settled;
            const decision = outcome.decision;
            if (onViolatingText === 'deliver') {
              notes.add(session, judgedResponseNote(outcome, false));
              return settled;
            }
            const withhold = (): Settled => {
              notes.add(session, judgedResponseNote(outcome, true));
              return { ...settled, answer: answerOf(judgedWithheldMessage(answer.response, failedRubrics(outcome), decision, DEFAULT_USER_MESSAGE)), replaced: true };
            };
            if (onViolatingText !== 'regenerate' || retried) return withhold();
            return attempt(
              () => invoke(withSystemText(next, `[POLICY CHECK] Your answer was not shown to the user: it did not pass a policy check. ${outcome.message ?? ''} Answer again.`)),
              (second) => andThen(classifyRetry(answerOf(second)), (again) => judgeAnswer(again, true)),
              (error) => (failed(REGENERATING, error), withhold()),
            );
          });
        };
        const finish = (settled: Settled) => andThen(judgesTurns ? judgeAnswer(settled) : settled, ({ answer, classified }) => answered(answer, classified));
        return andThen(invoke(next), (response) => {
          if (!calls) return finish({ answer: answerOf(response) });
          // An answer the monitor withholds never leaves this call: replaced, or asked for again (settleAnswer).
          const settled = settleAnswer(onViolatingText, answerOf(response), {
            classify: ({ turn }, options) => attempt(() => calls.afterModel(session, turn, { ...options, messages: () => toChatMessages(next.messages) }), (result) => result, (error) => (failed('monitor.afterModel', error), undefined)),
            retry: () =>
              attempt(
                () => calls.beforeModel(session, lazyModelRequest(() => requestToChatMessages(next))),
                (before) => (before.action === 'block' ? undefined : attempt(() => invoke(before.interventions.length > 0 ? withChatMessages(next, before.messages) : next), answerOf, (error) => (failed(REGENERATING, error), undefined))),
                (error) => (failed('monitor.beforeModel', error), undefined),
              ),
            replace: ({ response: withheld }, why) => answerOf(withheldMessage(withheld, why)),
          });
          return andThen(settled, (result) => finish({ answer: result.answer, ...(result.classified ? { classified: result.classified } : {}), ...(result.replaced ? { replaced: true } : {}) }));
        });
      };
      if (!calls) return callModel(request);
      const proceed = (before: BeforeModelResult | undefined) => {
        if (before?.action === 'block') {
          if (onBlock === 'throw') blockErrors.set(session, before.error);
          const answer = blockedResponse(before.intervention, session, blockMessage);
          sessions.answered(session, toAssistantTurn(answer));
          return answer;
        }
        return callModel(before && before.interventions.length > 0 ? withChatMessages(request, before.messages) : request);
      };
      // The conversation is converted only if the monitor reads it: a call with nothing due never does.
      const check = () => attempt(() => calls.beforeModel(session, lazyModelRequest(() => requestToChatMessages(request, threadOf()))), proceed, (error) => (failed('monitor.beforeModel', error), proceed(undefined)));
      if (!agentState) return check();
      return onGraphSession(agentState, { sessionId: session, stored: sessionTextOf(request.state), where: 'agent state' }, check, modelAnswerWithSession, failed);
    },

    afterModel: {
      canJumpTo: ['model'],
      hook: function panoptesAfterModel(state: { messages: BaseMessage[] }) {
        const answer = state.messages.at(-1);
        const block = monitor && onBlock === 'throw' ? blockOf(answer) : undefined;
        if (block) {
          const error = blockErrors.get(block.sessionId);
          blockErrors.delete(block.sessionId);
          throw error ?? new WorkflowViolationError({ intervention: block.intervention, modelMessage: block.text, sessionId: block.sessionId });
        }
        if (!answer || !AIMessage.isInstance(answer) || (answer.tool_calls?.length ?? 0) > 0) return undefined;
        const refused = unrestoredCalls(answer);
        if (refused.length === 0) return undefined;
        // Every call of the answer was refused at once: nothing is left to ask a human about (a jump skips the hooks
        // after this one), and the model answers the refusals next.
        return { messages: [withRefusedCalls(answer), ...refusalMessages(refused)], jumpTo: 'model' as const };
      },
    },

    wrapToolCall: function panoptesToolCall(request, handler) {
      const call = toToolCall(request.toolCall);
      const session = monitor || perConversation || judgesCalls ? sessions.ofToolCall(request.runtime.configurable, call.id, request.state.messages) : undefined;
      // The answer's calls refused at once go back into it with this result: no human can be asked about them now.
      const restoration = restorationForToolCall(request.state.messages, call.id);
      const checked = session !== undefined && call.id !== undefined && checkedCalls.delete(checkedCall(session, call.id));
      const decideAndRun = () =>
        andThen(checked ? ALLOWED : decideToolCall(call, { monitor, sentinel, sessionId: session, messages: request.state.messages, afterRules: judgeGuard(session, request.state.messages) }, failOpen), (decision) => {
          if (!decision.allowed) return refusalMessage(call, decision.reason);
          if (!perConversation || session === undefined || call.id === undefined || !policyToolNames.has(call.name)) {
            // The sentinel hears what became of the call: a write's confirmation consumed and its data invalidated,
            // a data tool's result recorded as facts.
            return runRecorded(call, () => handler(request), { sentinel, sessionId: session }, (error) => failed('sentinel.recordResult', error));
          }
          // A policy tool sees only the run's config: when the run names no session, tell it the one found here (a
          // hash of the conversation's opening), by its tool call id.
          const id = call.id;
          policyCallSessions.set(id, session);
          return Promise.resolve(handler(request)).finally(() => policyCallSessions.delete(id));
        });
      const run = restoration ? () => andThen(decideAndRun(), (result) => withRestoration(result, restoration)) : decideAndRun;
      if (!agentState || session === undefined) return run();
      // The tool calls of one answer run side by side, each reading the session text the answer's step wrote.
      return onGraphSession(agentState, { sessionId: session, stored: sessionTextOf(request.state), fanOut: true, where: 'agent state' }, run, toolResultWithSession, failed);
    },

    ...(monitor && (onReport || closeSession)
      ? {
          afterAgent: async function panoptesAfterAgent(state, runtime) {
            const session = sessions.ofRun(runtime.configurable, state.messages);
            if (session === undefined) return undefined;
            const report = await failOpen('monitor report', () => (closeSession ? monitor.endSession(session) : monitor.report(session)), undefined);
            // User code, bounded like every call Panoptes makes into it: a hook that never settles cannot hold the run.
            if (report && onReport) await failOpen('onReport', async () => within(onReport(report), onReportTimeoutMs, systemTimers), undefined);
            return undefined;
          },
        }
      : {}),
  });
}

const ALLOWED = { allowed: true } as const;

/** A model answer and its turn in the core's form. */
interface Answer {
  response: AIMessage;
  turn: ReturnType<typeof toAssistantTurn>;
}

/** An answer on its way out: the monitor's classification of it, and whether it stands in for a withheld one. */
interface Settled {
  answer: Answer;
  classified?: AfterModelResult;
  replaced?: boolean;
}

/** The rubrics whose outcome stopped an action (not those that passed or only warned). */
function failedRubrics(outcome: JudgedOutcome): string[] {
  return outcome.judgments.filter((judgment) => judgment.action !== 'allow' && judgment.action !== 'warn').map((judgment) => judgment.rubric);
}
const checkedCall = (sessionId: string, toolCallId: string) => `${sessionId}\u0000${toolCallId}`;

function validate({ monitor, sentinel, sessionId, onBlock, withPolicyTools, factSummary }: { monitor?: Monitor; sentinel?: SentinelSource; sessionId?: string; onBlock: string; withPolicyTools: boolean; factSummary: unknown }): void {
  if (!monitor && !sentinel) throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass a monitor from createMonitor(), a sentinel from createSentinel(), or both.' });
  if (monitor && typeof monitor.beforeModel !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  assertSentinelOption(sentinel);
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new InvalidOptionError({ parameter: 'sessionId', value: sessionId, fix: 'Pass a non-empty string, or leave it out to use the run’s thread_id.' });
  }
  if (onBlock !== 'end' && onBlock !== 'throw') throw new InvalidOptionError({ parameter: 'onBlock', value: onBlock, fix: "Pass 'end' (the default) or 'throw'." });
  assertFactSummaryOption(factSummary, sentinel);
  if (withPolicyTools && !sentinel) throw new InvalidOptionError({ parameter: 'policyTools', value: withPolicyTools, fix: 'The policy tools act on a sentinel: pass `sentinel` too, or leave policyTools out.' });
}
