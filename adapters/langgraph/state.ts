import type { BaseMessage } from '@langchain/core/messages';
import { Annotation } from '@langchain/langgraph';
import type { MonitorSession } from '../../src/index.js';
import { parseSessionText } from './session-text.js';

/**
 * The graph-state channel that holds the thread's monitor session as JSON text, so a checkpointer persists it with
 * the messages and a resumed thread continues with the same trace, verdicts and pending interventions, in any
 * process. Text, not the session object: a checkpointer serialises every value of every checkpoint one by one, and
 * reads them back the same way, which late in a long thread cost more than the monitor's own work (388 us added per
 * model call as an object, 217-222 us as text, with 100 entries of history). Steps and deviations go as tuples, to
 * keep the text small; read it with {@link sessionFromState}.
 * A node that does not write it leaves it as it was. `null` until the first node writes it: LangGraph throws (and
 * catches) an error for every read of an empty channel, which cost tens of microseconds per run.
 * @example
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });
 * type GraphState = typeof State.State; // { messages: BaseMessage[]; panoptes: string | null }
 */
export const PanoptesAnnotation = Annotation.Root({
  panoptes: Annotation<string | null>({
    reducer: (current, next) => next ?? current,
    default: () => null,
  }),
});

/** The part of a graph's state Panoptes reads: the messages, and the session's JSON text when the graph keeps one. */
export interface PanoptesGraphState {
  messages: BaseMessage[];
  panoptes?: string | null | undefined;
}

/**
 * The monitor session a graph state holds (`PanoptesAnnotation`), or null before a node of Panoptes wrote one.
 * For the session's verdicts in a readable form, `monitor.report(sessionId)` is usually what you want.
 * @throws {SyntaxError} or {TypeError} when the channel holds text that is not a session (something other than
 * Panoptes' nodes wrote it).
 * @example
 * const state = (await graph.getState({ configurable: { thread_id: 'ticket-1042' } })).values;
 * sessionFromState(state)?.workflow.trace // ['greeting', 'verify_identity']
 */
export function sessionFromState(state: { panoptes?: string | null | undefined }): MonitorSession | null {
  return state.panoptes ? parseSessionText(state.panoptes) : null;
}
