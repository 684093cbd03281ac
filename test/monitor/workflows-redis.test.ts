import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMonitor, parseWorkflow, type MonitorSession, type WorkflowsMonitorOptions } from '../../src/index.js';
import { createRedisSessionStore, type RedisSessionStore } from '../../src/store/redis/index.js';
import { startRedisServer, type RedisServer } from '../store/redis-server.js';
import { call, recordingLogger, refundsWorkflow as refunds } from './fixtures.js';

const support = parseWorkflow(`
name: support
states:
  - { name: greeting, initial: true }
  - { name: verify, classification: { tool_calls: [verify_identity] } }
  - { name: refund, classification: { tool_calls: [issue_refund] } }
transitions:
  - { from: greeting, to: verify }
  - { from: verify, to: refund }
constraints:
  - { name: verify_first, type: precedence, trigger: refund, target: verify, severity: critical }
`);


const user = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('several workflows over one Redis, in two processes', () => {
  let redis: RedisServer;
  const stores: Array<RedisSessionStore<MonitorSession>> = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  }, 30_000);
  afterAll(async () => {
    for (const store of stores) await store.close();
    await redis?.stop();
  });

  /** A "process": a monitor over a Redis store with a client of its own. */
  async function process(select: WorkflowsMonitorOptions['select']) {
    const store = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: 'mw:', logger: recordingLogger() });
    stores.push(store);
    await store.ready();
    return createMonitor({ workflows: { support, refunds }, default: 'support', store, select, logger: recordingLogger() });
  }

  it('runs a session under the workflow the first process chose, in every process', async () => {
    const first = await process({ firstMessage: { refunds: ['refund'] } });
    const second = await process(() => 'support'); // would choose otherwise: the stored choice wins
    await first.beforeModel('s1', user('I want a refund for B1'));
    expect(await second.workflowOf('s1')).toBe('refunds');

    // The second process checks the session's calls against refunds: a refund needs a lookup, not an identity check.
    await second.afterModel('s1', call('get_booking'));
    expect((await second.beforeTool('s1', { id: 'get_booking-1', name: 'get_booking', args: {} })).action).toBe('allow');
    await first.afterModel('s1', call('issue_refund'));
    expect((await first.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} })).action).toBe('allow');
    expect(await second.report('s1')).toMatchObject({ workflowId: 'refunds', trace: ['start', 'lookup', 'refund'] });

    // A session the second process starts runs under support in both.
    await second.beforeModel('s2', user('I want a refund too'));
    expect(await first.workflowOf('s2')).toBe('support');
    await first.afterModel('s2', call('issue_refund'));
    expect(await first.beforeTool('s2', { id: 'issue_refund-1', name: 'issue_refund', args: {} })).toMatchObject({ action: 'deny', constraints: ['verify_first'] });
    await Promise.all([first.close(), second.close()]);

    const reader = createClient({ url: redis.url });
    await reader.connect();
    try {
      const keys = (await reader.keys('mw:*')).filter((key) => key.endsWith(':s1') || key.endsWith(':s2')).sort();
      expect(keys).toEqual(['mw:session:wf-choice:s1', 'mw:session:wf-choice:s2', 'mw:session:wf:refunds:s1', 'mw:session:wf:support:s2']);
    } finally {
      await reader.quit();
    }
  });

  it('agrees on one workflow when two processes start the same session at once', async () => {
    const slow = (id: string) => async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return id;
    };
    for (let round = 0; round < 5; round++) {
      const first = await process(slow('refunds'));
      const second = await process(slow('support'));
      const sessionId = `race-${round}`;
      const [a, b] = await Promise.all([first.startSession(sessionId), second.startSession(sessionId)]);
      expect(a).toBe(b);
      await Promise.all([first.afterModel(sessionId, call('get_booking')), second.afterModel(sessionId, call('verify_identity'))]);
      expect((await first.report(sessionId))!.workflowId).toBe(a);
      expect((await second.report(sessionId))!.steps).toHaveLength(2);
      await Promise.all([first.close(), second.close()]);
    }
  });
});
