import { ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { policyTools, wrapTools } from '../../../adapters/langchain/index.js';
import { InvalidOptionError } from '../../../src/index.js';
import { refundSetup } from '../../guards/helpers.js';
import { supportMonitor, supportTools } from './helpers.js';

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
    expect(answer.content).toMatch(/^issue_refund is not allowed yet\.\nTo proceed:\n- Find out the booking the customer is asking about \(booking_of_interest\)/);
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

  it('needs a sentinel or a monitor', () => {
    expect(() => wrapTools([], {})).toThrow(InvalidOptionError);
  });
});

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
