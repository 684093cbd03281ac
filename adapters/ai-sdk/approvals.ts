/**
 * The policy's confirmations through the AI SDK's own tool approval: a call the sentinel blocks only on a
 * confirmation of that exact call (`askable ... for tool`) asks the app's user through `needsApproval`, and an
 * approval given there records the confirmation for that call when the approved call runs.
 * @module
 */
import type { ModelMessage } from 'ai';
import { needsOnlyApproval, sentinelFor, type SentinelSource } from '../../src/index.js';

/** Asks the sentinel whether this call needs (only) the human's approval. Fails closed to "no approval": the refusal then explains. */
export async function policyNeedsApproval(source: SentinelSource, sessionId: string | undefined, tool: string, input: unknown): Promise<boolean> {
  try {
    const check = await sentinelFor(source, sessionId).check(tool, asArgs(input));
    return needsOnlyApproval(check);
  } catch {
    return false;
  }
}

/**
 * Whether the host is running this call because a human approved it: the conversation holds an approval request for
 * this tool call id and an approving response to it (the AI SDK executes approved calls at the start of the next
 * `generateText`/`streamText`, with those messages).
 */
export function wasApproved(messages: readonly ModelMessage[] | undefined, toolCallId: string): boolean {
  const requests = new Set<string>();
  for (const message of messages ?? []) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) if (part.type === 'tool-approval-request' && part.toolCallId === toolCallId) requests.add(part.approvalId);
  }
  if (requests.size === 0) return false;
  for (const message of messages ?? []) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-approval-response' && requests.has(part.approvalId) && part.approved) return true;
  }
  return false;
}

/** Records the human's approval of this exact call: the confirmations its check asks for. */
export async function recordApprovalOf(source: SentinelSource, sessionId: string | undefined, tool: string, input: unknown): Promise<void> {
  const sentinel = sentinelFor(source, sessionId);
  const check = await sentinel.check(tool, asArgs(input));
  if (needsOnlyApproval(check)) sentinel.recordApproval(check);
}

function asArgs(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}
