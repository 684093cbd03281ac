import { describe, expect, it } from 'vitest';
import { createMonitor, parseWorkflow, type ToolCall } from '../../src/index.js';
import { recordingLogger, supportWorkflow } from './fixtures.js';

// Bug 1 of issue 24: a call made in the same model response as the call whose state it depends on was allowed by a
// state whose result the model had not seen when it made the call.

const toolCall = (name: string, id: string): ToolCall => ({ id, name, args: {} });
const response = (...toolCalls: ToolCall[]) => ({ content: '', toolCalls });

/** A refunds workflow where a refund needs a confirmation first, with only refund-free states before it (`until`). */
const confirmWorkflow = parseWorkflow(`
name: confirm
states:
  - { name: start, initial: true }
  - { name: lookup, classification: { tool_calls: [get_booking] } }
  - { name: confirm, classification: { tool_calls: [ask_customer] } }
  - { name: refund, classification: { tool_calls: [issue_refund] } }
constraints:
  - { name: confirm_before_refund, type: until, trigger: "!refund", target: confirm, severity: critical }
  - { name: act_on_answer, type: next, trigger: confirm, target: refund, severity: critical }
`);

describe('a tool call in the same response as the call it depends on', () => {
  it('is refused by a critical precedence: the verification it needs was not seen when it was made', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const after = await monitor.afterModel('s1', response(toolCall('verify_identity', 'v1'), toolCall('issue_refund', 'r1')));
    expect(after.toolPreviews.map((preview) => preview.preview.refuse)).toEqual([false, true]);

    expect(await monitor.beforeTool('s1', toolCall('verify_identity', 'v1'))).toMatchObject({ action: 'allow', state: 'verify_identity' });
    const refund = await monitor.beforeTool('s1', toolCall('issue_refund', 'r1'));
    expect(refund).toMatchObject({ action: 'deny', by: 'workflow', state: 'account_action', constraints: ['verify_first'] });
    expect(refund.action === 'deny' && refund.reason).toMatch(/same response/);
    expect((await monitor.report('s1'))!.trace).toEqual(['greeting', 'verify_identity']);
    // No "verify first" guidance follows: the model did verify; the refusal's own text says to call again.
    expect(await monitor.beforeModel('s1', { messages: [{ role: 'user', content: 'go on' }] })).toMatchObject({ action: 'proceed', interventions: [] });

    // Once the model has seen the verification, the refund goes through.
    await monitor.afterModel('s1', response(toolCall('issue_refund', 'r2')));
    expect(await monitor.beforeTool('s1', toolCall('issue_refund', 'r2'))).toMatchObject({ action: 'allow', state: 'account_action' });
    const report = await monitor.endSession('s1');
    expect(report.trace).toEqual(['greeting', 'verify_identity', 'account_action']);
    expect(report.verdicts.verify_first).toBe('satisfied');
  });

  it('is refused whether or not the verification was checked first, and in any check order', async () => {
    for (const checks of [['r1'], ['r1', 'v1'], ['v1', 'r1']]) {
      const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
      await monitor.afterModel('s1', response(toolCall('verify_identity', 'v1'), toolCall('issue_refund', 'r1')));
      const decisions = [];
      for (const id of checks) decisions.push((await monitor.beforeTool('s1', toolCall(id === 'v1' ? 'verify_identity' : 'issue_refund', id))).action);
      expect(decisions).toEqual(checks.map((id) => (id === 'v1' ? 'allow' : 'deny')));
      await monitor.beforeModel('s1', { messages: [] });
      expect((await monitor.report('s1'))!.trace).toEqual(['greeting', 'verify_identity']);
    }
  });

  it('is allowed by a verification of an earlier response, even with another in this one', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    await monitor.afterModel('s1', response(toolCall('verify_identity', 'v1')));
    await monitor.beforeTool('s1', toolCall('verify_identity', 'v1'));
    await monitor.afterModel('s1', response(toolCall('verify_identity', 'v2'), toolCall('issue_refund', 'r1')));
    expect(await monitor.beforeTool('s1', toolCall('verify_identity', 'v2'))).toMatchObject({ action: 'allow' });
    expect(await monitor.beforeTool('s1', toolCall('issue_refund', 'r1'))).toMatchObject({ action: 'allow', state: 'account_action' });
  });

  it('is refused by a critical until whose target the same response reached', async () => {
    const monitor = createMonitor({ workflow: confirmWorkflow, logger: recordingLogger() });
    await monitor.afterModel('s1', response(toolCall('get_booking', 'g1')));
    await monitor.beforeTool('s1', toolCall('get_booking', 'g1'));
    await monitor.afterModel('s1', response(toolCall('ask_customer', 'a1'), toolCall('issue_refund', 'r1')));
    expect(await monitor.beforeTool('s1', toolCall('ask_customer', 'a1'))).toMatchObject({ action: 'allow' });
    expect(await monitor.beforeTool('s1', toolCall('issue_refund', 'r1'))).toMatchObject({ action: 'deny', constraints: ['confirm_before_refund'] });
    // The refused refund leaves the `next` after the confirmation open: the refund of the next response satisfies both.
    await monitor.afterModel('s1', response(toolCall('issue_refund', 'r2')));
    expect(await monitor.beforeTool('s1', toolCall('issue_refund', 'r2'))).toMatchObject({ action: 'allow', state: 'refund' });
    expect((await monitor.endSession('s1')).verdicts).toEqual({ confirm_before_refund: 'satisfied', act_on_answer: 'satisfied' });
  });

  it('is not refused by a constraint that only asks what comes next (`next`)', async () => {
    const nextOnly = parseWorkflow(`
name: next-only
states:
  - { name: start, initial: true }
  - { name: confirm, classification: { tool_calls: [ask_customer] } }
  - { name: refund, classification: { tool_calls: [issue_refund] } }
constraints:
  - { name: act_on_answer, type: next, trigger: confirm, target: refund, severity: critical }
`);
    const monitor = createMonitor({ workflow: nextOnly, logger: recordingLogger() });
    await monitor.afterModel('s1', response(toolCall('ask_customer', 'a1'), toolCall('issue_refund', 'r1')));
    expect((await monitor.beforeTool('s1', toolCall('ask_customer', 'a1'))).action).toBe('allow');
    expect((await monitor.beforeTool('s1', toolCall('issue_refund', 'r1'))).action).toBe('allow');
  });

  it('still counts when nobody checked the calls: a recorded transcript audits as it happened', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    await monitor.afterModel('s1', response(toolCall('verify_identity', 'v1'), toolCall('issue_refund', 'r1')));
    const report = await monitor.endSession('s1');
    expect(report.trace).toEqual(['greeting', 'verify_identity', 'account_action']);
    expect(report.violations.filter((violation) => violation.constraint === 'verify_first')).toEqual([]);
  });
});
