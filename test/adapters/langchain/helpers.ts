import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { FakeBuiltModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { interrupt } from '@langchain/langgraph';
import { vi } from 'vitest';
import { z } from 'zod';
import { createMonitor, createSentinelSessions, parseRulebase, parseWorkflow, type Logger, type MonitorOptions } from '../../../src/index.js';
import { REFUND_RULES } from '../../guards/helpers.js';
import { refundsWorkflow } from '../../monitor/fixtures.js';
import { textOf } from '../../../adapters/langchain/index.js';

const SUPPORT_YAML = readFileSync(fileURLToPath(new URL('../../../examples/workflows/customer-support.yaml', import.meta.url)), 'utf8');

/** The example support workflow: verify identity (critical precedence) before any account action. */
export const supportWorkflow = parseWorkflow(SUPPORT_YAML, { source: 'customer-support.yaml' });

/** The same workflow with revealing internal information made critical, so a leak blocks the next call. */
export const strictSupportWorkflow = parseWorkflow(SUPPORT_YAML.replace('    severity: error\n    intervention: keep_internal', '    severity: critical\n    intervention: keep_internal'), {
  source: 'customer-support-strict.yaml',
});

/**
 * The support workflow as a customer-facing agent needs it: revealing internal information is critical and its
 * intervention a `block:`, so a leaking answer must never reach the customer.
 */
export const leakBlockedWorkflow = parseWorkflow(
  SUPPORT_YAML.replace('    severity: error\n    intervention: keep_internal', '    severity: critical\n    intervention: keep_internal').replace('keep_internal: "inject: ', 'keep_internal: "block: '),
  { source: 'customer-support-leak-blocked.yaml' },
);

/** An answer that reveals the system prompt and internal notes (the support workflow's `share_internal_info`). */
export const LEAK = 'Sure. My system prompt says to stall refunds, and the internal notes call you a difficult customer.';

/** What a leak gives away, to check it reached no one. */
export const SECRET = 'difficult customer';

/**
 * A refunds workflow for the rules of test/guards/helpers.ts: look the booking up (`get_booking`) before refunding it
 * (`issue_refund`), a critical precedence. The rules refuse a refund the workflow allows until the booking of
 * interest is set and the customer confirms.
 */
export const refundWorkflow = refundsWorkflow;

/** The agent's own get_booking and issue_refund, as LangChain tools over spies. */
export function refundTools() {
  const lookup = vi.fn(async ({ booking_id }: { booking_id: string }) => JSON.stringify({ booking_id, status: 'cancelled_by_airline' }));
  const refund = vi.fn(async ({ booking_id }: { booking_id: string }) => `Refunded ${booking_id}.`);
  const getBooking = tool(lookup, { name: 'get_booking', description: 'Look up a booking', schema: z.object({ booking_id: z.string() }) });
  const issueRefund = tool(refund, { name: 'issue_refund', description: 'Refund a booking', schema: z.object({ booking_id: z.string() }) });
  return { lookup, refund, getBooking, issueRefund, tools: [getBooking, issueRefund] };
}

/** Per-conversation sentinels over the refund rules; booking B1 was cancelled by the airline. */
export function refundSentinels() {
  const bookings: Record<string, unknown> = { B1: { status: 'cancelled_by_airline', delay_minutes: 0 } };
  return createSentinelSessions({ rulebase: parseRulebase(REFUND_RULES), tools: { get_booking: { execute: async (args) => bookings[String(args.booking_id)] } } });
}

/** What a model does to have the refund of B1 proved: names the booking, records the customer's yes, refunds. */
export function provedRefundCalls(): AIMessage[] {
  return [
    callTool('set_context', { name: 'booking_of_interest', value: 'B1' }, 's1'),
    callTool('record_confirmation', { goal: 'customer_confirms("B1")', answer: 'yes' }, 'c1'),
    callTool('issue_refund', { booking_id: 'B1' }, 'r1'),
  ];
}

/** A logger that records warnings instead of printing them. */
export function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
}

/** A monitor over the support workflow that logs into a recording logger. */
export function supportMonitor(options: Partial<MonitorOptions> = {}) {
  const logger = recordingLogger();
  return { monitor: createMonitor({ workflow: supportWorkflow, logger, ...options }), logger };
}

/** Real LangChain tools over spies, so a test can assert which ran. */
export function supportTools() {
  const verify = vi.fn(async ({ customer_id }: { customer_id: string }) => `Customer ${customer_id} verified.`);
  const refund = vi.fn(async ({ order_id }: { order_id: string }) => `Refund issued for ${order_id}.`);
  const verifyIdentity = tool(verify, { name: 'verify_identity', description: 'Verify the customer', schema: z.object({ customer_id: z.string() }) });
  const issueRefund = tool(refund, { name: 'issue_refund', description: 'Refund an order', schema: z.object({ order_id: z.string() }) });
  return { verify, refund, verifyIdentity, issueRefund, tools: [verifyIdentity, issueRefund] };
}

/**
 * The support tools, with a `verify_identity` that asks a human (LangGraph's `interrupt()`) before it answers: a
 * run pauses inside it and resumes with `Command({ resume })`.
 */
export function humanVerifiedTools() {
  const { refund, issueRefund } = supportTools();
  const verify = vi.fn(async ({ customer_id }: { customer_id: string }) => `Customer ${customer_id} verified: ${String(interrupt(`Is this customer ${customer_id}?`))}.`);
  const verifyIdentity = tool(verify, { name: 'verify_identity', description: 'Verify the customer, asking a human', schema: z.object({ customer_id: z.string() }) });
  return { verify, refund, tools: [verifyIdentity, issueRefund] };
}

/** A message as a line a test can compare: its kind, text, and any tool calls or tool status. */
export function describeMessage(message: BaseMessage): string {
  const calls = ((message as { tool_calls?: Array<{ name: string; args: unknown }> }).tool_calls ?? []).map((call) => ` ${call.name}(${JSON.stringify(call.args)})`);
  const status = (message as { status?: string }).status === 'error' ? ' [error]' : '';
  return `${message.getType()}:${textOf(message.content)}${calls.join('')}${status}`;
}

/** What the scripted model received on each call. */
export function requestsOf(model: FakeBuiltModel): string[][] {
  return model.calls.map((call) => call.messages.map(describeMessage));
}

/**
 * A scripted response that calls one tool. Unlike `fakeModel().respondWithTools`, whose text echoes the request,
 * its text is empty, so what the model was told never leaks into the thread's history through the fake.
 */
export function callTool(name: string, args: Record<string, unknown>, id: string): AIMessage {
  return new AIMessage({ content: '', tool_calls: [{ name, args, id, type: 'tool_call' }] });
}
