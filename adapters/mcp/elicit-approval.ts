/**
 * The policy's confirmations of one call, asked through MCP elicitation: a form with an approve / decline choice,
 * sent by the guarding server to its client while the `tools/call` waits.
 * @module
 */
import { ElicitResultSchema, ErrorCode, type ElicitRequestFormParams, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { approvalQuestions, type CheckResult } from '../../src/index.js';

/** The user's answer: approve, decline, or none (the client failed, or nobody answered in time). */
export type ElicitedApproval = { answer: 'approve' } | { answer: 'decline' } | { answer: 'none'; cause: 'approval-timeout' | 'approval-failed'; error: unknown };

/** How the request reaches the client: the handler's `extra.sendRequest`, so an HTTP transport sends it on the call's stream. */
export type SendElicitation = (request: ServerRequest, schema: typeof ElicitResultSchema, options: { timeout: number; signal: AbortSignal }) => Promise<{ action: string; content?: Record<string, unknown> }>;

/**
 * The elicitation form for a check blocked on nothing but confirmations of its call: the policy's questions (each
 * naming the exact call) as the message, one required choice.
 */
export function approvalForm(check: CheckResult): ElicitRequestFormParams {
  return {
    mode: 'form',
    message: approvalQuestions(check).join('\n'),
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
 * Asks the client's user to approve the call `check` was blocked on, bounded by `timeoutMs` (the SDK's request timeout,
 * which also tells the client to stop asking). Only an accepted form with `approve` approves; `decline`, `cancel` and
 * any other content decline. Never throws: a timeout or a client error is an answer of `none`.
 */
export async function elicitApproval(send: SendElicitation, check: CheckResult, { timeoutMs, signal }: { timeoutMs: number; signal: AbortSignal }): Promise<ElicitedApproval> {
  try {
    const result = await send({ method: 'elicitation/create', params: approvalForm(check) }, ElicitResultSchema, { timeout: timeoutMs, signal });
    return result.action === 'accept' && result.content?.decision === 'approve' ? { answer: 'approve' } : { answer: 'decline' };
  } catch (error) {
    const timedOut = (error as { code?: unknown } | null)?.code === ErrorCode.RequestTimeout;
    return { answer: 'none', cause: timedOut ? 'approval-timeout' : 'approval-failed', error };
  }
}
