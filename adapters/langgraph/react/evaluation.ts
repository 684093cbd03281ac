import { randomUUID } from 'node:crypto';
import { RemoveMessage, type BaseMessage } from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { freshControllerState, type ReactControllerState } from './state.js';

/**
 * What a new input on a thread that already holds an evaluation does with that evaluation's messages: `reset`
 * removes them from the thread, so the model reads only the new input; `keep` leaves them for the model to read.
 * Either way the new input begins a new evaluation: its budgets, tool cache, trace and citations start afresh.
 */
export type ThreadHistory = 'reset' | 'keep';

/**
 * The messages of the evaluation in hand, from its opening message on: what its trace, tool cache, citations and
 * repair count read. All of them on a thread whose evaluation names no opening (one that began before Panoptes
 * recorded it).
 */
export function evaluationMessages(messages: readonly BaseMessage[], react: Pick<ReactControllerState, 'openingMessageId'> | undefined): readonly BaseMessage[] {
  const opening = react?.openingMessageId;
  if (opening === undefined || messages[0]?.id === opening) return messages;
  const at = messages.findIndex((message) => message.id === opening);
  return at < 0 ? messages : messages.slice(at);
}

/** The message with an id of its own, so an evaluation can name where it begins and ends. */
export function withId<Message extends BaseMessage>(message: Message): Message {
  if (message.id === undefined || message.id === null) {
    message.id = randomUUID();
    message.lc_kwargs.id = message.id; // as LangGraph's message reducer does, so the id survives serialisation
  }
  return message;
}

/** What beginning an evaluation adds to the node's update, and the messages the model reads in it. */
export interface EvaluationStart {
  /** The update: the thread's earlier messages removed (`reset`) and the input, and a fresh controller state. */
  update: { messages: BaseMessage[]; react: ReactControllerState; panoptes?: string };
  /** The messages of the thread the model reads once the update applies. */
  messages: BaseMessage[];
}

/**
 * Begins an evaluation on a thread whose earlier messages are `earlier` and whose new input is `input` (already in
 * the thread, or to be added: `added`). The controller state starts afresh: counters, budgets, the run's key, its
 * output. The monitor's session in graph state is cleared too, so the workflow starts again with the evaluation.
 */
export function beginEvaluation(
  { earlier, input, added, react, panoptes }: { earlier: readonly BaseMessage[]; input: readonly BaseMessage[]; added: boolean; react: ReactControllerState; panoptes?: string | null | undefined },
  history: ThreadHistory,
): EvaluationStart {
  const opening = input.map(withId);
  const keep = history === 'keep';
  const continued = keep && earlier.length > 0;
  const fresh = freshControllerState({
    evaluation: (react.evaluation ?? (react.startedAt === undefined && react.status === 'running' ? 0 : 1)) + 1,
    ...(continued ? { continued: true } : {}),
    ...(opening[0] ? { openingMessageId: opening[0].id! } : {}),
    ...(opening.at(-1) ? { lastMessageId: opening.at(-1)!.id! } : {}),
  });
  // Removing every message and adding the input back keeps the input's ids, so `openingMessageId` still names it.
  const messages = keep ? (added ? [...opening] : []) : [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...opening];
  return {
    update: { messages, react: fresh, ...(panoptes ? { panoptes: '' } : {}) },
    messages: keep ? [...earlier, ...opening] : [...opening],
  };
}

/** The state a node works on once it began an evaluation: the thread as the model reads it, the fresh controller state. */
export function stateAfterStart<State extends { messages: BaseMessage[]; react: ReactControllerState; panoptes?: string | null }>(state: State, start: EvaluationStart): State {
  return { ...state, messages: start.messages, react: start.update.react, ...(start.update.panoptes === undefined ? {} : { panoptes: start.update.panoptes }) };
}

/** A node's update when it began an evaluation: the beginning's (the removals, the input, the fresh state), then its own. */
export function updateAfterStart<Update extends { messages?: BaseMessage[]; react?: Partial<ReactControllerState> }>(start: EvaluationStart | undefined, update: Update): Update {
  if (!start) return update;
  return { ...start.update, ...update, messages: [...start.update.messages, ...(update.messages ?? [])], react: { ...start.update.react, ...update.react } };
}

/**
 * Whether a new input arrived on a thread whose evaluation has not ended (it paused on an interrupt, and was sent a
 * new input instead of a resumption): within an evaluation, nothing but tool answers follows the last message the
 * controller wrote or read.
 */
export function inputPending(messages: readonly BaseMessage[], react: Pick<ReactControllerState, 'lastMessageId'>): boolean {
  if (react.lastMessageId === undefined) return false;
  for (let at = messages.length - 1; at >= 0; at--) {
    if (messages[at]!.id === react.lastMessageId) return false;
    if (messages[at]!.getType() !== 'tool') return true;
  }
  return false;
}

/**
 * The messages a new input added to a thread whose evaluation has ended (or paused): those after the last message the
 * controller wrote or read, but the tool answers to its last calls (a tools step may end a run after the model node
 * wrote). On a thread that recorded none, those after its last model answer or tool answer.
 */
export function inputAfterEvaluation(messages: readonly BaseMessage[], react: ReactControllerState): { earlier: BaseMessage[]; input: BaseMessage[] } {
  let at = react.lastMessageId === undefined ? -1 : messages.findLastIndex((message) => message.id === react.lastMessageId);
  if (at < 0) at = messages.findLastIndex((message) => message.getType() === 'ai' || message.getType() === 'tool');
  let end = at + 1;
  while (end < messages.length && messages[end]!.getType() === 'tool') end++;
  return { earlier: messages.slice(0, end), input: messages.slice(end) };
}
