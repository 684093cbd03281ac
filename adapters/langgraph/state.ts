import type { BaseMessage } from '@langchain/core/messages';
import { Annotation } from '@langchain/langgraph';
import type { MonitorSession } from '../../src/index.js';

/**
 * The graph-state channel that holds the thread's monitor session (plain JSON), so a checkpointer persists it with
 * the messages and a resumed thread continues with the same trace, verdicts and pending interventions, in any
 * process. A node that does not write it leaves it as it was.
 * @example
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...PanoptesAnnotation.spec });
 * type GraphState = typeof State.State; // { messages: BaseMessage[]; panoptes: MonitorSession | undefined }
 */
export const PanoptesAnnotation = Annotation.Root({
  panoptes: Annotation<MonitorSession | undefined>({
    reducer: (current, next) => next ?? current,
    default: () => undefined,
  }),
});

/** The part of a graph's state Panoptes reads: the messages, and the session when the graph keeps one. */
export interface PanoptesGraphState {
  messages: BaseMessage[];
  panoptes?: MonitorSession | undefined;
}
