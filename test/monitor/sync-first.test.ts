import { describe, expect, it } from 'vitest';
import { createMonitor, guardToolCallSyncFirst, isPromiseLike, syncFirst, type Monitor } from '../../src/index.js';
import { refundSetup } from '../guards/helpers.js';
import { recordingLogger, supportWorkflow } from './fixtures.js';

const messages = [{ role: 'user' as const, content: 'hello' }];

describe('syncFirst', () => {
  it('answers a session in memory without promises, and the public methods still return promises', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const calls = syncFirst(monitor);
    const before = calls.beforeModel('s1', { messages });
    expect(isPromiseLike(before)).toBe(false);
    expect(before).toMatchObject({ action: 'proceed', interventions: [] });
    const after = calls.afterModel('s1', { content: '', toolCalls: [{ id: 'c1', name: 'issue_refund', args: {} }] });
    expect(isPromiseLike(after)).toBe(false);
    const tool = calls.beforeTool('s1', { id: 'c1', name: 'issue_refund', args: {} });
    expect(tool).toMatchObject({ action: 'deny', by: 'workflow', constraints: ['verify_first'] });

    const publicCall = monitor.beforeModel('s1', { messages });
    expect(publicCall).toBeInstanceOf(Promise);
    expect((await publicCall).action).toBe('proceed');
  });

  it('answers with a promise when the session waits for something: an async store', async () => {
    const sessions = new Map<string, unknown>();
    const store = { get: async (id: string) => sessions.get(id) as never, set: async (id: string, value: unknown) => void sessions.set(id, value), delete: async (id: string) => void sessions.delete(id) };
    const monitor = createMonitor({ workflow: supportWorkflow, store, logger: recordingLogger() });
    const before = syncFirst(monitor).beforeModel('s1', { messages });
    expect(isPromiseLike(before)).toBe(true);
    expect(await before).toMatchObject({ action: 'proceed' });
  });

  it('uses the methods of a monitor createMonitor did not make', async () => {
    const monitor = { beforeModel: async () => ({ action: 'proceed', messages, interventions: [] }) } as unknown as Monitor;
    expect(syncFirst(monitor)).toBe(monitor);
  });
});

describe('guardToolCallSyncFirst', () => {
  it('decides a workflow-only call at once, and one the rules must prove with a promise', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger() });
    const decision = guardToolCallSyncFirst({ id: 'c1', name: 'issue_refund', args: {} }, { monitor, sessionId: 's1' });
    expect(isPromiseLike(decision)).toBe(false);
    expect(decision).toMatchObject({ allowed: false, by: 'workflow', constraints: ['verify_first'] });

    const { sentinel } = refundSetup({ B1: { status: 'cancelled_by_airline', delay_minutes: 0 } });
    const proved = guardToolCallSyncFirst({ name: 'issue_refund', args: { booking_id: 'B1' } }, { sentinel });
    expect(isPromiseLike(proved)).toBe(true);
    expect(await proved).toMatchObject({ allowed: false, by: 'rules' }); // no booking of interest yet: the rules say what is missing
  });
});
