import type { ChatMessage } from '../messages/index.js';
import type { LoopStep, LoopToolResult } from './types.js';

/**
 * The steps of a recorded conversation: each assistant message with the tool results that follow it, in the same
 * step (the shape the audit CLI and `stopWhen`-style hosts feed to `observe`). Messages before the first assistant
 * message and non-assistant, non-tool messages are not steps; an assistant message that answers a new user message
 * (after an earlier assistant message) starts a user turn (`userTurn: true`), so a replay counts per turn as a live
 * host does.
 * @param messages A conversation in the core's neutral form.
 * @example
 * for (const step of loopStepsFromMessages(transcript)) await detector.observe('audit', step);
 */
export function loopStepsFromMessages(messages: readonly ChatMessage[]): LoopStep[] {
  const steps: Array<{ text: string; toolCalls: NonNullable<LoopStep['toolCalls']>; toolResults: LoopToolResult[]; userTurn?: true }> = [];
  let userSpoke = false;
  for (const message of messages) {
    if (message.role === 'assistant') {
      steps.push({ text: message.content, toolCalls: message.toolCalls ?? [], toolResults: [], ...(userSpoke && steps.length > 0 ? { userTurn: true as const } : {}) });
      userSpoke = false;
    } else if (message.role === 'tool') steps.at(-1)?.toolResults.push(toolResult(message));
    else if (message.role === 'user') userSpoke = true;
  }
  return steps;
}

/**
 * The tool results at the end of a request, after its last assistant message: the results of the calls the agent
 * made on its previous turn, as a host sees them just before the next model call. Observe them as a results-only
 * step (`{ toolResults }`) to complete that turn.
 * @param messages The messages of the request about to be sent.
 * @example
 * await detector.observe(sessionId, { toolResults: toolResultsAfterLastTurn(request.messages) });
 */
export function toolResultsAfterLastTurn(messages: readonly ChatMessage[]): LoopToolResult[] {
  const results: LoopToolResult[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'assistant') break;
    if (message.role === 'tool') results.unshift(toolResult(message));
  }
  return results;
}

function toolResult(message: Extract<ChatMessage, { role: 'tool' }>): LoopToolResult {
  return {
    content: message.content,
    ...(message.toolCallId === undefined ? {} : { toolCallId: message.toolCallId }),
    ...(message.name === undefined ? {} : { name: message.name }),
    ...(message.isError === undefined ? {} : { isError: message.isError }),
  };
}
