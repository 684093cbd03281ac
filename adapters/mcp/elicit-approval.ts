/**
 * The user's approval of one call, asked through MCP elicitation: a form with an approve / decline choice, sent by
 * the guarding server to its client while the `tools/call` waits. The question is the policy's confirmations of the
 * call (`approvalQuestions`) or the judge's finding.
 * @module
 */
import { ElicitResultSchema, ErrorCode, type ElicitRequestFormParams, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** The user's answer: approve, decline, or none (the client failed, or nobody answered in time). */
export type ElicitedApproval = { answer: 'approve' } | { answer: 'decline' } | { answer: 'none'; cause: 'approval-timeout' | 'approval-failed'; error: unknown };

/** How the request reaches the client: the handler's `extra.sendRequest`, so an HTTP transport sends it on the call's stream. */
export type SendElicitation = (request: ServerRequest, schema: typeof ElicitResultSchema, options: { timeout: number; signal: AbortSignal }) => Promise<{ action: string; content?: Record<string, unknown> }>;

/**
 * The elicitation form for one call: the question (naming the exact call) as the message, one required choice.
 */
export function approvalForm(question: string): ElicitRequestFormParams {
  return {
    mode: 'form',
    message: question,
    requestedSchema: {
      type: 'object',
      properties: {
        decision: { type: 'string', title: 'Your decision', oneOf: [{ const: 'approve', title: 'Approve this exact call' }, { const: 'decline', title: 'Decline' }] },
      },
      required: ['decision'],
    },
  };
}

/**
 * Asks the client's user `question` about one call, bounded by `timeoutMs` (the SDK's request timeout, which also
 * tells the client to stop asking). Only an accepted form with `approve` approves; `decline`, `cancel` and any other
 * content decline. Never throws: a timeout or a client error is an answer of `none`.
 */
export async function elicitApproval(send: SendElicitation, question: string, { timeoutMs, signal }: { timeoutMs: number; signal: AbortSignal }): Promise<ElicitedApproval> {
  try {
    const result = await send({ method: 'elicitation/create', params: approvalForm(question) }, ElicitResultSchema, { timeout: timeoutMs, signal });
    return result.action === 'accept' && result.content?.decision === 'approve' ? { answer: 'approve' } : { answer: 'decline' };
  } catch (error) {
    const timedOut = (error as { code?: unknown } | null)?.code === ErrorCode.RequestTimeout;
    return { answer: 'none', cause: timedOut ? 'approval-timeout' : 'approval-failed', error };
  }
}
