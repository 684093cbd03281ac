import type { BaseMessage } from '@langchain/core/messages';
import { Annotation } from '@langchain/langgraph';
import type { MonitorSession } from '../../src/index.js';

/**
 * The graph-state channel that holds the thread's monitor session (plain JSON), so a checkpointer persists it with
 * the messages and a resumed thread continues with the same trace, verdicts and pending interventions, in any
 * process. A node that does not write it leaves it as it was. `null` until the first node writes it: LangGraph
 * throws (and catches) an error for every read of an empty channel, which cost tens of microseconds per run.
 * @example
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });
 * type GraphState = typeof State.State; // { messages: BaseMessage[]; panoptes: MonitorSession | null }
 */
export const PanoptesAnnotation = Annotation.Root({
  panoptes: Annotation<MonitorSession | null>({
    reducer: (current, next) => next ?? current,
    default: () => null,
  }),
});

/** The part of a graph's state Panoptes reads: the messages, and the session when the graph keeps one. */
export interface PanoptesGraphState {
  messages: BaseMessage[];
  panoptes?: MonitorSession | null | undefined;
}
