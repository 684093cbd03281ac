/**
 * `noteRefusals`: the reasons of calls a host refused without a tool result to carry them (a proxy) go into the next
 * call's system prompt once; a reason the workflow's pending guidance already shows is not repeated; a host that
 * never calls it (the adapters, whose tool result carries the reason) sees nothing new.
 */
import { describe, expect, it } from 'vitest';
import { createMonitor, parseWorkflow } from '../../src/index.js';
import { createMemorySessionStore } from '../../src/store/index.js';
import { call, recordingLogger, supportWorkflow } from './fixtures.js';

const messages = [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'Refund me.' }];
const systemOf = (result: { action: string; messages?: Array<{ role: string; content: string }> }) => (result.action === 'proceed' ? result.messages!.find((message) => message.role === 'system')!.content : '');
const count = (text: string, part: string) => text.split(part).length - 1;

describe('monitor.noteRefusals', () => {
  it("adds a workflow refusal's reason when its own template does not show it, and only once", async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    await monitor.afterModel('s1', call('issue_refund'));
    const denied = await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} });
    expect(denied.action).toBe('deny');
    const reason = denied.action === 'deny' ? denied.reason : '';
    await monitor.noteRefusals('s1', [reason, reason]);
    const system = systemOf(await monitor.beforeModel('s1', { messages }));
    expect(system).toContain("Verify the customer's identity before account_action.");
    expect(count(system, reason)).toBe(1);
    expect(systemOf(await monitor.beforeModel('s1', { messages }))).not.toContain(reason);
  });

  it("leaves out a reason the built-in refusal guidance already shows ({details})", async () => {
    const workflow = parseWorkflow(`
name: plain
states:
  - { name: greeting, initial: true }
  - { name: verify_identity, classification: { tool_calls: [verify_identity] } }
  - { name: account_action, classification: { tool_calls: [issue_refund] } }
transitions: [{ from: greeting, to: verify_identity }, { from: verify_identity, to: account_action }, { from: greeting, to: account_action }]
constraints:
  - { name: verify_first, type: precedence, trigger: account_action, target: verify_identity, severity: critical }
`);
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', call('issue_refund'));
    const denied = await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} });
    const reason = denied.action === 'deny' ? denied.reason : '';
    await monitor.noteRefusals('s1', [reason]);
    const system = systemOf(await monitor.beforeModel('s1', { messages }));
    expect(system).toContain('Your call was refused before it ran:');
    expect(count(system, reason)).toBe(1);
  });

  it("carries a guard's reason, which beforeTool alone schedules nothing for (the adapters' tool result carries it)", async () => {
    const store = createMemorySessionStore();
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger(), store });
    await monitor.afterModel('s1', call('verify_identity'));
    const guard = () => ({ allowed: false, reason: 'The call to verify_identity was refused: no account given, so it did not run.' });
    const denied = await monitor.beforeTool('s1', { id: 'verify_identity-1', name: 'verify_identity', args: {} }, { guard });
    expect(denied).toMatchObject({ action: 'deny', by: 'guard' });
    expect(await monitor.peek('s1')).toEqual({ action: 'proceed', interventions: [] });
    await monitor.noteRefusals('s1', ['The call to verify_identity was refused: no account given, so it did not run.']);
    expect(count(systemOf(await monitor.beforeModel('s1', { messages })), 'no account given')).toBe(1);
  });
});
