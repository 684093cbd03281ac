import { ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { policyTools, wrapTools } from '../../../adapters/langchain/index.js';
import { createMonitor, createSentinelSessions, InvalidOptionError, parseRulebase, type Monitor, type Sentinel } from '../../../src/index.js';
import { REFUND_RULES, refundSetup } from '../../guards/helpers.js';
import { recordingLogger, refundTools, refundWorkflow, supportMonitor, supportTools } from './helpers.js';

function refundTool() {
  const refund = vi.fn(async ({ booking_id }: { booking_id: string }) => `Refunded ${booking_id}.`);
  const issueRefund = tool(refund, { name: 'issue_refund', description: 'Refund a booking', schema: z.object({ booking_id: z.string() }), returnDirect: true });
  return { refund, issueRefund };
}

describe('wrapTools', () => {
  it('answers a refused tool call with an error ToolMessage giving the blockers; the tool never runs', async () => {
    const { sentinel, facts } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const { refund, issueRefund } = refundTool();
    const [guarded] = wrapTools([issueRefund], { sentinel });
    await sentinel.check('issue_refund', { booking_id: 'B1' }); // fetches the booking: facts, not a trace of the refund
    const version = facts.version;

    const answer = (await guarded!.invoke({ id: 'r1', name: 'issue_refund', args: { booking_id: 'B1' }, type: 'tool_call' })) as ToolMessage;
    expect(ToolMessage.isInstance(answer)).toBe(true);
    expect(answer).toMatchObject({ status: 'error', tool_call_id: 'r1', name: 'issue_refund' });
    expect(answer.content).toMatch(/^issue_refund is not allowed yet\. To proceed:\n- Find out the booking the customer is asking about \(booking_of_interest\)/);
    expect(refund).not.toHaveBeenCalled();
    expect(facts.version).toBe(version); // the refusal itself left no trace
  });

  it('runs the original once the policy allows the call, and keeps everything else of the original', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    sentinel.bindContext('booking_of_interest', 'B1');
    sentinel.confirm('customer_confirms("B1")');
    const { refund, issueRefund } = refundTool();
    const [guarded] = wrapTools([issueRefund], { sentinel });

    const answer = (await guarded!.invoke({ id: 'r1', name: 'issue_refund', args: { booking_id: 'B1' }, type: 'tool_call' })) as ToolMessage;
    expect(answer).toMatchObject({ status: 'success', content: 'Refunded B1.', tool_call_id: 'r1' });
    expect(refund).toHaveBeenCalledTimes(1);
    expect(guarded).toMatchObject({ name: 'issue_refund', description: 'Refund a booking', returnDirect: true });
    expect(guarded!.schema).toBe(issueRefund.schema);
  });

  it('returns the refusal text when invoked with plain arguments, and guards the deprecated call() too', async () => {
    const { sentinel } = refundSetup({});
    const { refund, issueRefund } = refundTool();
    const [guarded] = wrapTools([issueRefund], { sentinel });
    expect(await guarded!.invoke({ booking_id: 'B1' })).toMatch(/^issue_refund is not allowed yet/);
    expect(await guarded!.call({ booking_id: 'B1' })).toMatch(/^issue_refund is not allowed yet/);
    expect(refund).not.toHaveBeenCalled();
  });

  it("runs the monitor's pre-emptive check in the call's session", async () => {
    const { monitor } = supportMonitor();
    const { issueRefund, refund } = supportTools();
    const [guardedRefund] = wrapTools([issueRefund], { monitor });
    await monitor.afterModel('t1', { content: '', toolCalls: [{ id: 'r1', name: 'issue_refund', args: { order_id: 'A1' } }] });

    const answer = (await guardedRefund!.invoke({ id: 'r1', name: 'issue_refund', args: { order_id: 'A1' }, type: 'tool_call' }, { configurable: { thread_id: 't1' } })) as ToolMessage;
    expect(answer.status).toBe('error');
    expect(answer.content).toMatch(/^The call to issue_refund was refused and did not run\./);
    expect(refund).not.toHaveBeenCalled();
  });

  it('with both guards, a call the rules refuse does not enter the workflow trace', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const monitor = createMonitor({ workflow: refundWorkflow, logger: recordingLogger() });
    const { tools, refund } = refundTools();
    const [getBooking, issueRefund] = wrapTools(tools, { monitor, sentinel, sessionId: 's1' });
    await monitor.afterModel('s1', { content: '', toolCalls: [{ id: 'g1', name: 'get_booking', args: { booking_id: 'B1' } }] });
    await getBooking!.invoke({ id: 'g1', name: 'get_booking', args: { booking_id: 'B1' }, type: 'tool_call' });
    await monitor.afterModel('s1', { content: '', toolCalls: [{ id: 'r1', name: 'issue_refund', args: { booking_id: 'B1' } }] });

    const answer = (await issueRefund!.invoke({ id: 'r1', name: 'issue_refund', args: { booking_id: 'B1' }, type: 'tool_call' })) as ToolMessage;
    expect(answer).toMatchObject({ status: 'error', tool_call_id: 'r1' });
    expect(answer.content).toMatch(/^issue_refund is not allowed yet\./);
    expect(refund).not.toHaveBeenCalled();
    const report = (await monitor.report('s1'))!;
    expect(report.trace).toEqual(['start', 'lookup']);
    expect(report.refusals).toEqual([expect.objectContaining({ state: 'refund', by: 'guard' })]);
  });

  it('with both guards, a call the workflow refuses never reaches the rules', async () => {
    const { sentinel, calls } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const check = vi.spyOn(sentinel, 'check');
    const monitor = createMonitor({ workflow: refundWorkflow, logger: recordingLogger() });
    const { tools, refund } = refundTools();
    const [, issueRefund] = wrapTools(tools, { monitor, sentinel, sessionId: 's1' });
    await monitor.afterModel('s1', { content: '', toolCalls: [{ id: 'r0', name: 'issue_refund', args: { booking_id: 'B1' } }] });

    const answer = (await issueRefund!.invoke({ id: 'r0', name: 'issue_refund', args: { booking_id: 'B1' }, type: 'tool_call' })) as ToolMessage;
    expect(answer.content).toMatch(/^The call to issue_refund was refused and did not run\./);
    expect(check).not.toHaveBeenCalled();
    expect(calls).toEqual([]);
    expect(refund).not.toHaveBeenCalled();
    expect((await monitor.report('s1'))!).toMatchObject({ trace: ['start'], refusals: [expect.objectContaining({ by: 'workflow' })] });
  });

  it('when the monitor throws, the rules still decide: a monitor fails open, the rules never do', async () => {
    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const logger = recordingLogger();
    const broken: Monitor = { ...createMonitor({ workflow: refundWorkflow }), beforeTool: () => Promise.reject(new Error('store unreachable')) };
    const { tools, refund } = refundTools();
    const [, issueRefund] = wrapTools(tools, { monitor: broken, sentinel, sessionId: 's1', logger });

    expect(await issueRefund!.invoke({ booking_id: 'B1' })).toMatch(/^issue_refund is not allowed yet\./);
    expect(refund).not.toHaveBeenCalled();
    expect(logger.warnings).toEqual([expect.stringMatching(/^\[panoptes\] monitor.beforeTool failed/)]);
  });

  it("with per-conversation sentinels, the model's policy tools and the guarded tools act on the run's thread", async () => {
    const sentinels = refundSessions();
    const { refund, issueRefund } = refundTool();
    const [guarded] = wrapTools([issueRefund], { sentinel: sentinels });
    const [, bind, confirm] = policyTools(sentinels);
    const alice = { configurable: { thread_id: 'alice' } };
    await bind!.invoke({ name: 'booking_of_interest', value: 'B1' }, alice);
    await confirm!.invoke({ goal: 'customer_confirms("B1")', answer: 'yes' }, alice);
    const call = { id: 'r1', name: 'issue_refund', args: { booking_id: 'B1' }, type: 'tool_call' as const };

    expect(await guarded!.invoke(call, { configurable: { thread_id: 'bob' } })).toMatchObject({ status: 'error' });
    expect(await guarded!.invoke(call)).toMatchObject({ status: 'error', content: expect.stringContaining('which conversation') });
    expect(refund).not.toHaveBeenCalled();
    expect(await guarded!.invoke(call, alice)).toMatchObject({ status: 'success', content: 'Refunded B1.' });
  });

  it('with per-conversation sentinels, a policy tool run that names no thread is logged to the given logger', async () => {
    const logger = recordingLogger();
    const [, bind] = policyTools(refundSessions(), { logger });
    expect(await bind!.invoke({ name: 'booking_of_interest', value: 'B1' })).toBe('The policy could not be consulted right now.');
    expect(logger.warnings).toEqual([expect.stringMatching(/^\[panoptes\] A policy tool failed/)]);
  });

  it('needs a sentinel or a monitor, and a sentinel that is one', () => {
    expect(() => wrapTools([], {})).toThrow(InvalidOptionError);
    expect(() => wrapTools([], { sentinel: {} as Sentinel })).toThrow(expect.objectContaining({ parameter: 'sentinel' }));
  });
});

function refundSessions() {
  const bookings: Record<string, unknown> = { B1: { status: 'cancelled_by_airline', delay_minutes: 0 } };
  return createSentinelSessions({ rulebase: parseRulebase(REFUND_RULES), tools: { get_booking: { execute: async (args) => bookings[String(args.booking_id)] } } });
}

describe('policyTools', () => {
  it("gives the model the sentinel's tools; a bad answer is an error ToolMessage", async () => {
    const { sentinel } = refundSetup({});
    const [query, bind, confirm] = policyTools(sentinel);
    expect([query!.name, bind!.name, confirm!.name]).toEqual(['query_policy', 'set_context', 'record_confirmation']);
    expect(await bind!.invoke({ name: 'booking_of_interest', value: 'B1' })).toBe('booking_of_interest = "B1".');
    const wrong = (await confirm!.invoke({ id: 'c1', name: 'record_confirmation', args: { goal: 'refundable("B1")', answer: 'yes' }, type: 'tool_call' })) as ToolMessage;
    expect(wrong).toMatchObject({ status: 'error', tool_call_id: 'c1', name: 'record_confirmation' });
    expect(wrong.content).toMatch(/^Only these can be confirmed: customer_confirms/);
  });
});
