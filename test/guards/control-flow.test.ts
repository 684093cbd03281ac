import { describe, expect, it } from 'vitest';
import { createMonitor, guardToolCall, isHostControlFlow } from '../../src/index.js';
import { recordingLogger, supportWorkflow } from '../monitor/fixtures.js';
import { refundSetup } from './helpers.js';

/** What LangGraph's interrupt looks like to the core: an error marked `is_bubble_up`. */
class FakeInterrupt extends Error {
  get is_bubble_up() {
    return true;
  }
}

describe("the host's control flow (an interrupt raised by a data tool)", () => {
  it('is told apart from failures by its mark', () => {
    expect(isHostControlFlow(new FakeInterrupt('paused'))).toBe(true);
    expect(isHostControlFlow(new Error('down'))).toBe(false);
    expect(isHostControlFlow({ is_bubble_up: 'yes' })).toBe(false);
    expect(isHostControlFlow(undefined)).toBe(false);
  });

  it('passes out of sentinel.check instead of becoming a fetch failure, and is not remembered as one', async () => {
    const paused = new FakeInterrupt('What is the status of B1?');
    let calls = 0;
    const interrupting = refundSetup({}, { tools: { get_booking: { execute: () => (calls++, Promise.reject(paused)) } } });
    interrupting.facts.bind('booking_of_interest', 'B1');
    await expect(interrupting.sentinel.check('issue_refund', { booking_id: 'B1' })).rejects.toBe(paused);
    await expect(interrupting.sentinel.check('issue_refund', { booking_id: 'B1' })).rejects.toBe(paused);
    expect(calls).toBe(2); // asked again on the next check: a resumed run gets its answer

    // A failing tool still blocks the proof, as before.
    const failing = refundSetup({});
    failing.facts.bind('booking_of_interest', 'B1');
    expect(await failing.sentinel.check('issue_refund', { booking_id: 'B1' })).toMatchObject({ allowed: false, status: 'blocked' });
  });

  it('passes out of the monitor’s pre-emptive check, which records no refusal, and out of guardToolCall', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const paused = new FakeInterrupt('ask a human');
    await monitor.afterModel('s1', { content: '', toolCalls: [{ id: 'v1', name: 'verify_identity', args: {} }] });
    await expect(monitor.beforeTool('s1', { id: 'v1', name: 'verify_identity', args: {} }, { guard: () => Promise.reject(paused) })).rejects.toBe(paused);
    await expect(monitor.beforeTool('s1', { id: 'v1', name: 'verify_identity', args: {} }, { guard: () => { throw paused; } })).rejects.toBe(paused);
    expect((await monitor.report('s1'))!.refusals).toEqual([]);

    const interrupting = refundSetup({}, { tools: { get_booking: { execute: () => Promise.reject(paused) } } });
    interrupting.facts.bind('booking_of_interest', 'B1');
    await monitor.afterModel('s2', { content: '', toolCalls: [{ id: 'v2', name: 'verify_identity', args: {} }] });
    await monitor.beforeTool('s2', { id: 'v2', name: 'verify_identity', args: {} }); // the workflow then allows a refund
    const onMonitorError = (error: unknown) => expect.unreachable(`the monitor did not fail: ${String(error)}`);
    await expect(guardToolCall({ name: 'issue_refund', args: { booking_id: 'B1' } }, { monitor, sentinel: interrupting.sentinel, sessionId: 's2', onMonitorError })).rejects.toBe(paused);
  });
});
