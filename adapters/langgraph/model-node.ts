import { SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { isGraphBubbleUp, type LangGraphRunnableConfig } from '@langchain/langgraph';
import {
  andThen,
  appendToSystem,
  assertFactSummaryOption,
  assertOnViolatingText,
  assertSentinelOption,
  isSentinelSessions,
  FACT_SUMMARY_FAILURE,
  factSummaryBlock,
  attempt,
  InvalidOptionError,
  lazyModelRequest,
  settleAnswer,
  syncFirst,
  type BeforeModelResult,
  type Judge,
  type Logger,
  type MaybePromise,
  type Monitor,
  type OnJudgment,
  type OnViolatingText,
  type SentinelSource,
} from '../../src/index.js';
import { assertJudgeOption } from '../langchain/judged-calls.js';
import { blockedResponse, defaultBlockMessage, type BlockMessage } from '../langchain/block-message.js';
import { createFailureLog } from '../langchain/fail-open.js';
import { fromChatMessages, toAssistantTurn, toChatMessages } from '../langchain/translate.js';
import { REGENERATING, withheldMessage } from '../langchain/withheld-message.js';
import { graphSessionAccess, onGraphSession } from './graph-monitor.js';
import { answeredInSession, modelCallSessionId } from './graph-session.js';
import { createNodeJudge, type NodeJudge } from './judged-answer.js';
import type { PanoptesGraphState } from './state.js';

/** Options of {@link wrapModelNode}. */
export interface WrapModelNodeOptions {
  /**
   * Best from `createGraphMonitor`, so the session lives in graph state; any monitor works. Without one (a sentinel
   * only), the wrapper only puts the known facts into the messages your node receives.
   */
  monitor?: Monitor;
  /**
   * Your system prompt. Given here, it is put before the thread's messages for the monitor and for your node, so
   * workflow guidance lands in it; your node then sends `state.messages` as it receives them. Left out, guidance
   * that belongs in a system prompt comes as a system message at the front of `state.messages`.
   */
  systemPrompt?: string;
  /** The session of every run. Without it: the thread's `configurable.thread_id`, `metadata.session_id`, else a hash of the conversation's opening. */
  sessionId?: string;
  /** What a hard block does: answer with an AI message saying why (the graph's routing ends the run), or throw `WorkflowViolationError`. @default 'end' */
  onBlock?: 'end' | 'throw';
  /** The text of the AI message a blocked call answers with. @default `[Panoptes] This run was stopped: <intervention text>` */
  blockMessage?: BlockMessage;
  /**
   * What becomes of an answer the monitor withholds (one breaking a critical constraint, or one whose intervention
   * is a `block:`): `replace` puts an AI message with the workflow's user message in its place in the node's update;
   * `regenerate` first runs your node once more with the guidance and keeps a compliant second answer; `deliver`
   * lets it through, and a critical violation blocks the next call instead.
   * @default 'replace'
   */
  onViolatingText?: OnViolatingText;
  /**
   * The sentinel that guards the tools (the one your `GuardedToolNode` has): its known facts go into the system
   * prompt of every call. Per-conversation sentinels (`createSentinelSessions`) give each thread its own.
   */
  sentinel?: SentinelSource;
  /**
   * Put the sentinel's known facts (`facts.summarize()`, under `[KNOWN FACTS]`) at the end of the system prompt your
   * node receives, read afresh for each call. `false` leaves the messages as they are.
   * @default true when a sentinel is given
   */
  factSummary?: boolean;
  /** Where Panoptes reports its own failures, once per place. @default console */
  logger?: Logger;
  /**
   * A judge (`createJudge`). Its `turn` rubrics judge an answer with text and no tool calls before the node returns
   * it (an answer that calls tools is judged through its calls, by `GuardedToolNode`); one a rubric refuses or asks
   * about follows `onViolatingText`: `replace` puts an AI message with `I'm sorry, I can't help with that...` in its
   * place (`response_metadata.panoptes.judged` names the rubrics), `regenerate` runs your node once more with the
   * finding, `deliver` lets it out. Its `conversation` rubrics judge the thread in the background, every
   * `every_turns` answers or after a turn rubric warned. Either finding reaches your node on the session's next call,
   * at the end of the system prompt (`[POLICY CHECK]`, `[CONVERSATION REVIEW]`).
   */
  judge?: Judge;
  /** Told each judge outcome that did not simply pass (user code: caught). */
  onJudgment?: OnJudgment;
}

/** What a model node returns: its new messages (one or a list) and any other state keys. */
export type ModelNodeUpdate = { messages?: BaseMessage | BaseMessage[] } & Record<string, unknown>;

/** A graph node that calls a model: the function you pass to `addNode`. */
export type ModelNode<State extends PanoptesGraphState, Update extends ModelNodeUpdate> = (state: State, config: LangGraphRunnableConfig) => Update | Promise<Update>;

/**
 * Turns your model node into the monitor node of a hand-built graph. Before your node runs, the monitor's pending
 * interventions are applied to the messages your node receives (its `state.messages` for this call only: the
 * thread's history never stores a correction); after it, the AI message it returns is classified and moves the
 * workflow. A hard block skips your node and answers with an AI message saying why (no tool calls, so the usual
 * `toolsCondition` routing ends the run), or throws `WorkflowViolationError`. An answer the monitor withholds (it
 * breaks a critical constraint) is replaced in the update by an AI message with the workflow's user message, or, with
 * `onViolatingText: 'regenerate'`, by your node's second answer when it complies. The session goes back into graph state
 * (`PanoptesAnnotation`) with the node's update. With a `sentinel`, the messages your node receives carry its known
 * facts at the end of the system message (`factSummary`).
 *
 * Your node should return only its new messages, as LangGraph's message reducer expects; if it returns the whole
 * list, the messages Panoptes added for this call are taken out of the update.
 * @throws {InvalidOptionError} at construction when none of `monitor`, `sentinel` and `judge` is given, `judge` is not a judge, or `onBlock` is invalid.
 * @example
 * const callModel = async (state: typeof State.State) => ({ messages: [await model.invoke(state.messages)] });
 * graph.addNode('agent', wrapModelNode(callModel, { monitor, systemPrompt: 'You are a support agent.' }));
 */
export function wrapModelNode<State extends PanoptesGraphState, Update extends ModelNodeUpdate>(
  node: ModelNode<State, Update>,
  { monitor, systemPrompt, sessionId, onBlock = 'end', blockMessage = defaultBlockMessage, onViolatingText = 'replace', sentinel, factSummary = sentinel !== undefined, logger = console, judge, onJudgment }: WrapModelNodeOptions,
): (state: State, config: LangGraphRunnableConfig) => Promise<(Update & { panoptes?: string }) | { messages: BaseMessage[]; panoptes?: string }> {
  if (monitor === undefined && sentinel === undefined && judge === undefined) throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass a monitor from createGraphMonitor() or createMonitor(), a sentinel, a judge from createJudge(), or several.' });
  assertJudgeOption(judge);
  if (monitor !== undefined && (!monitor || typeof monitor.beforeModel !== 'function')) throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createGraphMonitor() or createMonitor().' });
  if (onBlock !== 'end' && onBlock !== 'throw') throw new InvalidOptionError({ parameter: 'onBlock', value: onBlock, fix: "Pass 'end' (the default) or 'throw'." });
  assertOnViolatingText(onViolatingText);
  assertSentinelOption(sentinel);
  assertFactSummaryOption(factSummary, sentinel);
  // Panoptes' own failures let the node run; LangGraph's interrupts are control flow and pass through.
  const failed = createFailureLog(logger, isGraphBubbleUp);
  /** The messages with the sentinel's facts as they are now (read for each call), or as they are when it has none to give. */
  const withFacts = (sent: BaseMessage[], session: string | undefined): BaseMessage[] => {
    const block = sentinel && factSummary ? factSummaryBlock(sentinel, session, (error) => failed(FACT_SUMMARY_FAILURE, error)) : undefined;
    return block === undefined ? sent : fromChatMessages(appendToSystem(toChatMessages(sent), block));
  };
  const system = systemPrompt === undefined ? undefined : new SystemMessage(systemPrompt);
  const replace = (answer: NodeAnswer<Update>, replacement: BaseMessage): NodeAnswer<Update> => ({ update: withMessageReplaced(answer.update, answer.response!, replacement), response: replacement, turn: toAssistantTurn(replacement) });
  const nodeJudge = judge === undefined ? undefined : createNodeJudge(judge, { logger, onJudgment, onViolatingText, replace });
  /** The messages with the judge's notes for the session at the end of the system text. */
  const withNotes = (sent: BaseMessage[], notes: string): BaseMessage[] => (notes === '' ? sent : fromChatMessages(appendToSystem(toChatMessages(sent), notes)));
  if (monitor === undefined) return unmonitoredNode(node, { owner: (sentinel ?? judge)!, perConversation: sentinel === undefined || isSentinelSessions(sentinel), system, sessionId, withFacts, withNotes, nodeJudge, failed });
  // Sync-first: with the session in memory the monitor answers at once, and a step pays no promise of Panoptes'
  // own beyond the node's (each costs microseconds inside a graph's run).
  const calls = syncFirst(monitor);
  const graphSession = graphSessionAccess(monitor);

  return function panoptesModelNode(state, config) {
    const stored = state.messages ?? [];
    const session = modelCallSessionId(sessionId, stored, config, monitor);
    const request = system ? [system, ...stored] : stored;
    // Taken once per step: a regenerated call carries them too.
    const notes = nodeJudge ? nodeJudge.takeNotes(session) : '';

    /** Your node on these messages: its update (without what only the request held) and its answer. */
    const run = (sent: BaseMessage[]): MaybePromise<NodeAnswer<Update>> => {
      const asked = withFacts(withNotes(sent, notes), session);
      return andThen(node({ ...state, messages: asked }, config), (output) => {
        const response = lastAiMessage(output);
        return { update: withoutRequestOnly(output, asked, stored), response, turn: response && toAssistantTurn(response) };
      });
    };
    // An answer the monitor withholds never leaves the node: replaced, or asked for again (settleAnswer).
    const settle = (first: NodeAnswer<Update>, sent: BaseMessage[]) =>
      settleAnswer(onViolatingText, first, {
        classify: ({ turn }, options) => (turn ? attempt(() => calls.afterModel(session, turn, options), (result) => result, (error) => (failed('monitor.afterModel', error), undefined)) : undefined),
        retry: () =>
          attempt(
            () => calls.beforeModel(session, lazyModelRequest(() => toChatMessages(sent))),
            (before) => (before.action === 'block' ? undefined : attempt(() => run(before.interventions.length > 0 ? fromChatMessages(before.messages) : sent), (answer) => answer, (error) => (failed(REGENERATING, error), undefined))),
            (error) => (failed('monitor.beforeModel', error), undefined),
          ),
        replace: (answer, withheld) => replace(answer, withheldMessage(answer.response!, withheld)),
      });
    /** What the monitor let through, judged before the node returns it; a second answer is classified again. */
    const judged = (settled: { answer: NodeAnswer<Update>; replaced?: unknown }, sent: BaseMessage[]): MaybePromise<NodeAnswer<Update>> => {
      if (!nodeJudge || settled.replaced) return settled.answer;
      return nodeJudge.judge(session, settled.answer, sent, async (note) => {
        const second = await Promise.resolve()
          .then(() => run(withNotes(sent, note)))
          .catch((error: unknown) => (failed(REGENERATING, error), undefined));
        if (!second?.turn) return second && { answer: second, replaced: false };
        const classified = await Promise.resolve(attempt(() => calls.afterModel(session, second.turn!, { withhold: true, regenerated: true }), (result) => result, (error) => (failed('monitor.afterModel', error), undefined)));
        return classified?.withheld ? { answer: replace(second, withheldMessage(second.response!, classified.withheld)), replaced: true } : { answer: second, replaced: false };
      });
    };
    const proceed = (before: BeforeModelResult | undefined): MaybePromise<Update | { messages: BaseMessage[] }> => {
      if (before?.action === 'block') {
        if (onBlock === 'throw') throw before.error;
        const answer = blockedResponse(before.intervention, session, blockMessage);
        answeredInSession(monitor, session, toAssistantTurn(answer));
        return { messages: [answer] };
      }
      const sent = before && before.interventions.length > 0 ? fromChatMessages(before.messages) : request;
      return andThen(run(sent), (first) =>
        andThen(settle(first, sent), (settled) =>
          andThen(judged(settled, sent), ({ update, turn, response }) => {
            // Recorded (the answer delivered) once classified, so a call that continues the thread finds that step done.
            if (turn) answeredInSession(monitor, session, turn);
            nodeJudge?.answered(session, sent, response);
            return update;
          }),
        ),
      );
    };
    // The conversation is converted only if the monitor reads it: a call with nothing due never does.
    const check = () =>
      attempt(
        () => calls.beforeModel(session, lazyModelRequest(() => toChatMessages(request))),
        proceed,
        (error) => (failed('monitor.beforeModel', error), proceed(undefined)),
      );
    try {
      // With a graph monitor, the session goes back into graph state with the node's update when the step changed it.
      return Promise.resolve(
        graphSession ? onGraphSession(graphSession, { sessionId: session, stored: state.panoptes, where: 'graph state' }, check, (update, panoptes) => ({ ...update, panoptes }), failed) : check(),
      );
    } catch (error) {
      return Promise.reject(error); // a block with onBlock 'throw', or the node's own synchronous throw
    }
  };
}

/**
 * A model node without a monitor (a sentinel, a judge, or both): your node receives the known facts and the judge's
 * notes, its answer is judged, and recorded in the session registry of `owner` (the sentinel, else the judge), so the
 * tool node finds the session of its calls.
 */
function unmonitoredNode<State extends PanoptesGraphState, Update extends ModelNodeUpdate>(
  node: ModelNode<State, Update>,
  {
    owner,
    perConversation,
    system,
    sessionId,
    withFacts,
    withNotes,
    nodeJudge,
    failed,
  }: {
    owner: object;
    /** Whether runs have sessions (per-conversation sentinels, or a judge alone); one shared sentinel has none. */
    perConversation: boolean;
    system: SystemMessage | undefined;
    sessionId: string | undefined;
    withFacts: (sent: BaseMessage[], session: string | undefined) => BaseMessage[];
    withNotes: (sent: BaseMessage[], notes: string) => BaseMessage[];
    nodeJudge: NodeJudge<NodeAnswer<Update>> | undefined;
    failed: (where: string, error: unknown) => void;
  },
) {
  return async function panoptesFactsNode(state: State, config: LangGraphRunnableConfig): Promise<Update> {
    const stored = state.messages ?? [];
    const session = perConversation || nodeJudge ? modelCallSessionId(sessionId, stored, config, owner) : undefined;
    const request = system ? [system, ...stored] : stored;
    const notes = nodeJudge && session !== undefined ? nodeJudge.takeNotes(session) : '';
    const run = async (sent: BaseMessage[]): Promise<NodeAnswer<Update>> => {
      const asked = withFacts(withNotes(sent, notes), session);
      const output = await node({ ...state, messages: asked }, config);
      const response = lastAiMessage(output);
      return { update: withoutRequestOnly(output, asked, stored), response, turn: response && toAssistantTurn(response) };
    };
    const first = await run(request);
    // A regenerated run that fails leaves the first answer withheld.
    const retry = (note: string) => run(withNotes(request, note)).then((answer) => ({ answer, replaced: false }), (error: unknown) => (failed(REGENERATING, error), undefined));
    const answer = nodeJudge && session !== undefined ? await nodeJudge.judge(session, first, request, retry) : first;
    if (session !== undefined && answer.turn) answeredInSession(owner, session, answer.turn);
    if (session !== undefined) nodeJudge?.answered(session, request, answer.response);
    return answer.update;
  };
}

/** What one run of your node gave: its update, and the AI message in it (the answer) in the core's form. */
interface NodeAnswer<Update> {
  update: Update;
  response: BaseMessage | undefined;
  turn: ReturnType<typeof toAssistantTurn> | undefined;
}

/** The update with `answer` (one message, or one in the list) swapped for `replacement`. */
function withMessageReplaced<Update extends ModelNodeUpdate>(update: Update, answer: BaseMessage, replacement: BaseMessage): Update {
  const messages = Array.isArray(update.messages) ? update.messages.map((message) => (message === answer ? replacement : message)) : replacement;
  return { ...update, messages };
}

function lastAiMessage(update: ModelNodeUpdate): BaseMessage | undefined {
  const messages = update?.messages === undefined ? [] : Array.isArray(update.messages) ? update.messages : [update.messages];
  return messages.findLast((message) => message?.getType?.() === 'ai');
}

/** Drops from a returned message list what exists only in this call's request: corrections never enter history. */
function withoutRequestOnly<Update extends ModelNodeUpdate>(update: Update, sent: readonly BaseMessage[], stored: readonly BaseMessage[]): Update {
  if (!Array.isArray(update?.messages) || sent === stored) return update;
  // Most nodes return only their new messages, none of them sent: nothing to take out, and no set of the thread built.
  if (!update.messages.some((message) => sent.includes(message))) return update;
  const inThread = new Set(stored);
  const requestOnly = new Set(sent.filter((message) => !inThread.has(message)));
  return { ...update, messages: update.messages.filter((message) => !requestOnly.has(message)) };
}
