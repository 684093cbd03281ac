import type { BaseMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { conversationSessionId } from '../../src/index.js';
import { resolveSessionId } from '../langchain/session-id.js';
import { conversationOpening } from '../langchain/translate.js';

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
