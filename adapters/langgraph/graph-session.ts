import type { BaseMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { conversationSessionId, type Monitor, type MonitorSession } from '../../src/index.js';
import type { FailOpen } from '../langchain/fail-open.js';
import { resolveSessionId } from '../langchain/session-id.js';
import { conversationOpening } from '../langchain/translate.js';
import { isGraphMonitor } from './graph-monitor.js';
import type { PanoptesGraphState } from './state.js';

/**
 * The session of a node run: the option, the thread's `configurable.thread_id`, `metadata.session_id`, else a hash
 * of the opening system messages and first user message in graph state (what every node of the thread sees alike).
 * @example
 * const sessionId = graphSessionId(undefined, state.messages, config); // 'ticket-1042' for thread_id 'ticket-1042'
 * const report = await monitor.report(sessionId);
 */
export function graphSessionId(option: string | undefined, messages: readonly BaseMessage[], config: LangGraphRunnableConfig | undefined): string {
  return resolveSessionId({
    option,
    threadId: config?.configurable?.thread_id,
    metadataSessionId: config?.metadata?.session_id,
    fallback: () => conversationSessionId(conversationOpening(messages)),
  });
}

/**
 * Runs a node's monitor work on the session held in graph state: loads it first, and returns it as it stands after,
 * for the node's state update. A monitor that keeps its own sessions (not a graph monitor) is left to its store.
 */
export async function withGraphSession<Result>(
  monitor: Monitor,
  sessionId: string,
  state: Partial<PanoptesGraphState>,
  failOpen: FailOpen,
  work: () => Promise<Result>,
): Promise<{ result: Result; update: { panoptes?: MonitorSession } }> {
  if (!isGraphMonitor(monitor)) return { result: await work(), update: {} };
  await failOpen('loading the session from graph state', () => monitor.load(sessionId, state.panoptes), undefined);
  const result = await work();
  const session = await failOpen('reading the session for graph state', () => monitor.session(sessionId), undefined);
  return { result, update: session ? { panoptes: session } : {} };
}
