/** Issue 13: every call Panoptes makes into user code is caught, counted and bounded in time. */
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore, createMonitor, InvalidOptionError, type MonitorSession, type SessionStore } from '../../src/index.js';
import { createFakeEmbedder } from '../../src/testing/index.js';
import { call, recordingLogger, say, supportWorkflow } from './fixtures.js';

const text = say;
const toolTurn = (name: string, id: string) => call(name, id);

const never = <T>() => new Promise<T>(() => {});

describe('event listeners', () => {
  // Regression: an async listener that rejected was an unhandled rejection, which ends a Node process.
  it('counts an async listener that rejects, and one that throws, as listener misses; the call goes on', async () => {
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow: supportWorkflow, logger });
    monitor.on('state-change', async () => {
      throw new Error('listener down');
    });
    monitor.on('state-change', () => {
      throw new Error('listener broken');
    });
    const result = await monitor.afterModel('s1', text('tell me more'));
    await new Promise((resolve) => setImmediate(resolve)); // the rejection is seen a tick later
    expect(result.classifications[0]!.state).toBe('identify_issue');
    expect(monitor.misses().listener).toBe(2);
    expect(logger.warnings).toEqual([expect.stringContaining('A monitor event listener threw or rejected.')]);
  });
});

describe('session stores', () => {
  const storeWith = (overrides: Partial<SessionStore<MonitorSession>>): SessionStore<MonitorSession> => ({ ...createMemorySessionStore<MonitorSession>(), ...overrides });

  // Regression: a store whose get never answered left beforeModel/afterModel pending for good, and the session's queue with them.
  it('answers within storeTimeoutMs when the store never answers a read, counts it, and keeps the queue moving', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger(), storeTimeoutMs: 10, store: storeWith({ get: () => never() }) });
    const before = await monitor.beforeModel('s1', { messages: [{ role: 'user', content: 'hi' }] });
    expect(before.action).toBe('proceed');
    const after = await monitor.afterModel('s1', text('hello'));
    expect(after.classifications[0]!.state).toBe('greeting');
    expect(monitor.misses().store).toBe(2);
  });

  it('abandons a write that never answers within storeTimeoutMs, and counts it', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, logger: recordingLogger(), storeTimeoutMs: 10, store: storeWith({ set: () => never() }) });
    await monitor.afterModel('s1', text('tell me more'));
    await monitor.afterModel('s1', text('tell me more'));
    expect(monitor.misses().store).toBe(2);
  });

  // Regression: a value that was not a session gave a TypeError out of the monitor, uncounted.
  it.each([
    ['an empty object', {}],
    ['a string', 'session'],
    ['a session of another workflow', { workflow: { status: 'active', workflow: 'other', state: 'x' }, turns: 0, steps: [], stepCount: 0, pendingToolStates: [] }],
    ['a session whose state this workflow does not have', 'unknown-state'],
  ])('discards %s from the store, counts it, and starts the session afresh', async (_name, junk) => {
    const memory = createMemorySessionStore<MonitorSession>();
    const reference = createMonitor({ workflow: supportWorkflow, store: memory });
    await reference.afterModel('s1', text('tell me more'));
    const stored = memory.get('s1') as MonitorSession;
    const value = junk === 'unknown-state' ? { ...stored, workflow: { ...stored.workflow, state: 'nowhere' } } : junk;
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow: supportWorkflow, logger, store: storeWith({ get: async () => value as MonitorSession }) });
    const after = await monitor.afterModel('s1', text('tell me more'));
    expect(after.classifications[0]!.state).toBe('identify_issue');
    expect(after.effects).toContainEqual(expect.objectContaining({ type: 'state-entered', from: 'greeting', to: 'identify_issue' }));
    expect(monitor.misses().store).toBe(1);
    expect(logger.warnings).toEqual([expect.stringContaining('not a monitor session')]);
  });

  it('reads a valid stored session as it is', async () => {
    const memory = createMemorySessionStore<MonitorSession>();
    const monitor = createMonitor({ workflow: supportWorkflow, store: { get: async (id) => structuredClone(memory.get(id)), set: async (id, value) => memory.set(id, structuredClone(value)), delete: async (id) => memory.delete(id) } });
    await monitor.afterModel('s1', text('tell me more'));
    await monitor.afterModel('s1', toolTurn('verify_identity', 'c1'));
    await monitor.beforeTool('s1', { id: 'c1', name: 'verify_identity', args: {} });
    expect((await monitor.report('s1'))!.trace).toEqual(['greeting', 'identify_issue', 'verify_identity']);
    expect(monitor.misses()).toEqual({});
  });

  it('checks the budgets at construction', () => {
    expect(() => createMonitor({ workflow: supportWorkflow, storeTimeoutMs: 0 })).toThrow(InvalidOptionError);
    expect(() => createMonitor({ workflow: supportWorkflow, guardTimeoutMs: Number.NaN })).toThrow(/`guardTimeoutMs`/);
  });
});

describe('tool guards', () => {
  it('refuses a call whose guard does not answer within guardTimeoutMs (guards fail closed)', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, guardTimeoutMs: 10 });
    await monitor.afterModel('s1', toolTurn('verify_identity', 'c1'));
    const decision = await monitor.beforeTool('s1', { id: 'c1', name: 'verify_identity', args: {} }, { guard: () => never() });
    expect(decision).toMatchObject({ action: 'deny', by: 'guard', reason: 'The call to verify_identity was refused: its policy check did not finish within 10 ms, so it did not run.' });
  });
});

describe('exemplar warm-up', () => {
  const exact = 'What seems to be the problem?';

  // Regression: while the exemplars were embedded, every call skipped the tier (an exact match gave `fallback`).
  it('a first call during warm-up waits for it: an exact exemplar match is classified by embedding', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, embeddings: createFakeEmbedder() });
    const after = await monitor.afterModel('s1', text(exact));
    expect(after.classifications[0]).toMatchObject({ method: 'embedding', state: 'identify_issue' });
    await expect(monitor.ready()).resolves.toBeUndefined();
  });

  // Regression: an embedDocuments that never answered made every call fall back for ever, nothing counted or logged.
  it('a warm-up that never finishes rejects ready() after warmUpTimeoutMs, and every call that needed it is a counted, logged miss', async () => {
    const logger = recordingLogger();
    const embeddings = createFakeEmbedder();
    const monitor = createMonitor({ workflow: supportWorkflow, logger, embeddingTimeoutMs: 5, warmUpTimeoutMs: 20, embeddings: { embedQuery: embeddings.embedQuery, embedDocuments: () => never() } });
    await expect(monitor.ready()).rejects.toThrow(/took longer than 20 ms \(warmUpTimeoutMs\)/);
    const after = await monitor.afterModel('s1', text(exact));
    expect(after.classifications[0]).toMatchObject({ method: 'fallback', evidence: { kind: 'fallback', reason: 'warming-up' } });
    expect(monitor.misses().embedding).toBeGreaterThanOrEqual(2);
    expect(logger.warnings).toHaveLength(1);
  });
});

describe('a late beforeTool', () => {
  // Regression: a beforeTool that arrived after the next afterModel entered the tool's state a second time
  // (1,000 interleaved calls gave 1,499 steps).
  it('records the check without entering the state again or adding a step', async () => {
    const monitor = createMonitor({ workflow: supportWorkflow, historyLimit: Infinity });
    for (let call = 0; call < 1000; call++) {
      await monitor.afterModel('s1', toolTurn(call % 2 === 0 ? 'verify_identity' : 'issue_refund', `c${call}`));
      await monitor.afterModel('s1', text('tell me more')); // the host ran the tool and went on before the check
      expect(await monitor.beforeTool('s1', { id: `c${call}`, name: call % 2 === 0 ? 'verify_identity' : 'issue_refund', args: {} })).toMatchObject({ action: 'allow', effects: [] });
    }
    const session = (await monitor.session('s1'))!;
    expect(session.stepCount).toBe(2000);
    expect(session.steps.filter((step) => step.method === 'tool_call')).toHaveLength(1000);
  });
});
