import { describe, expect, it } from 'vitest';
import { createMonitor, guardToolCall, toolRefusal, type CheckResult } from '../../src/index.js';
import { refundsWorkflow as workflow } from '../monitor/fixtures.js';
import { refundSetup } from './helpers.js';

const refundCall = { id: 'r1', name: 'issue_refund', args: { booking_id: 'BK1' } };
const quietLogger = { warn: () => {} };

describe('guardToolCall', () => {
  it('asks the workflow first: a refused call never reaches the rules', async () => {
    const { sentinel, calls } = refundSetup({ BK1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const monitor = createMonitor({ workflow, logger: quietLogger });
    const decision = await guardToolCall(refundCall, { monitor, sentinel, sessionId: 's1' });
    expect(decision).toMatchObject({ allowed: false, by: 'workflow', constraints: ['lookup_first'] });
    expect(calls).toEqual([]); // the rules fetched nothing
  });

  it('then the rules: a call they refuse does not enter the workflow trace', async () => {
    const { sentinel } = refundSetup({ BK1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const monitor = createMonitor({ workflow, logger: quietLogger });
    expect(await guardToolCall({ name: 'get_booking', args: { booking_id: 'BK1' } }, { monitor, sentinel, sessionId: 's1' })).toEqual({ allowed: true });
    const decision = await guardToolCall(refundCall, { monitor, sentinel, sessionId: 's1' });
    expect(decision).toMatchObject({ allowed: false, by: 'rules', constraints: [], check: { allowed: false } });
    expect(decision.allowed === false && decision.reason).toContain('booking_of_interest');
    expect((await monitor.report('s1'))!.trace).toEqual(['start', 'lookup']);
    expect((await monitor.report('s1'))!.refusals).toEqual([expect.objectContaining({ state: 'refund', by: 'guard' })]);
  });

  it('allows and enters the state when both agree', async () => {
    const { sentinel } = refundSetup({ BK1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const monitor = createMonitor({ workflow, logger: quietLogger });
    await guardToolCall({ name: 'get_booking', args: { booking_id: 'BK1' } }, { monitor, sentinel, sessionId: 's1' });
    sentinel.bindContext('booking_of_interest', 'BK1');
    sentinel.confirm('customer_confirms("BK1")', true);
    expect(await guardToolCall(refundCall, { monitor, sentinel, sessionId: 's1' })).toEqual({ allowed: true });
    expect((await monitor.report('s1'))!.trace).toEqual(['start', 'lookup', 'refund']);
  });

  it('works with the rules alone, or with nothing', async () => {
    const { sentinel } = refundSetup({});
    expect(await guardToolCall(refundCall, { sentinel })).toMatchObject({ allowed: false, by: 'rules' });
    expect(await guardToolCall(refundCall, {})).toEqual({ allowed: true });
  });
});

describe('guardToolCall edge cases', () => {
  it("never puts the sentinel's own policy tools to the rules", async () => {
    const { sentinel } = refundSetup({});
    expect(await guardToolCall({ name: sentinel.toolNames.bindContext, args: { name: 'booking_of_interest', value: 'BK1' } }, { sentinel })).toEqual({ allowed: true });
  });

  it('lets the rules decide alone when the monitor throws, and says so', async () => {
    const { sentinel } = refundSetup({});
    const broken = { beforeTool: () => Promise.reject(new Error('store exploded')) } as unknown as Parameters<typeof guardToolCall>[1]['monitor'];
    const errors: unknown[] = [];
    const decision = await guardToolCall(refundCall, { monitor: broken, sentinel, sessionId: 's1', onMonitorError: (error) => errors.push(error) });
    expect(decision).toMatchObject({ allowed: false, by: 'rules' });
    expect(errors).toEqual([new Error('store exploded')]);
  });
});

describe('toolRefusal', () => {
  it("names the guard that refused: the core's workflow refusal is the monitor's, a rules refusal the sentinel's", () => {
    expect(toolRefusal('issue_refund', { allowed: false, by: 'workflow', reason: 'Verify first.', constraints: ['verify_first'] })).toEqual({
      by: 'monitor',
      tool: 'issue_refund',
      reason: 'Verify first.',
      constraints: ['verify_first'],
    });
    const check: CheckResult = { allowed: false, status: 'blocked', tool: 'issue_refund', args: {}, blockers: [{ kind: 'no-guard', tool: 'issue_refund' }], text: 'Not yet.', message: 'denied' };
    expect(toolRefusal('issue_refund', { allowed: false, by: 'rules', reason: 'Not yet.', constraints: [], check })).toEqual({ by: 'sentinel', tool: 'issue_refund', reason: 'Not yet.', status: 'blocked', blockers: check.blockers });
    expect(toolRefusal('issue_refund', { allowed: false, by: 'rules', reason: 'Its policy check failed.', constraints: [] })).toEqual({ by: 'sentinel', tool: 'issue_refund', reason: 'Its policy check failed.' });
  });
});

describe('guardToolCall({ afterRules })', () => {
  const lookup = { id: 'g1', name: 'get_booking', args: { booking_id: 'BK1' } };

  it('runs only on a call the workflow and the rules allow, inside the monitor guard: a call it refuses never enters the trace', async () => {
    const { sentinel } = refundSetup({ BK1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const monitor = createMonitor({ workflow, logger: quietLogger });
    const asked: string[] = [];
    const afterRules = (call: { name: string }) => (asked.push(call.name), { allowed: false as const, reason: 'The judge says no.' });
    expect(await guardToolCall(refundCall, { monitor, sentinel, sessionId: 's1', afterRules })).toMatchObject({ allowed: false, by: 'workflow' });
    expect(await guardToolCall(lookup, { monitor, sentinel, sessionId: 's1', afterRules })).toMatchObject({ allowed: false, by: 'rules', reason: 'The judge says no.' });
    expect(asked).toEqual(['get_booking']);
    expect((await monitor.report('s1'))!.trace).toEqual(['start']);
    expect((await monitor.report('s1'))!.refusals).toEqual([expect.objectContaining({ state: 'refund', by: 'workflow' }), expect.objectContaining({ state: 'lookup', by: 'guard', reason: 'The judge says no.' })]);
  });

  it('without a sentinel it is the monitor guard alone; without a monitor it decides after the rules', async () => {
    const monitor = createMonitor({ workflow, logger: quietLogger });
    expect(await guardToolCall(lookup, { monitor, sessionId: 's1', afterRules: () => ({ allowed: true }) })).toEqual({ allowed: true });
    expect((await monitor.report('s1'))!.trace).toEqual(['start', 'lookup']);
    expect(await guardToolCall(lookup, { afterRules: async () => ({ allowed: false, reason: 'no' }) })).toMatchObject({ allowed: false, by: 'rules', reason: 'no' });
  });

  it('one that throws refuses the call (guards fail closed)', async () => {
    const monitor = createMonitor({ workflow, logger: quietLogger });
    const decision = await guardToolCall(lookup, { monitor, sessionId: 's1', afterRules: () => { throw new Error('judge broke'); } });
    expect(decision).toMatchObject({ allowed: false, reason: 'The call to get_booking was refused: its policy check failed, so it did not run.' });
  });
});
