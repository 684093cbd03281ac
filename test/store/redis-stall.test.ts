/**
 * The fault the outside probe found (issue 24): Redis stopped (SIGSTOP) for longer than a call's wait, while calls
 * keep coming for stored sessions. Before the fix each call waited seconds and, once Redis went on, the writes of the
 * calls that ran without their session landed and replaced every stored session with a fresh one. A file of its own:
 * it stops its own redis-server for 30 s.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMonitor, loadWorkflow, type MonitorSession } from '../../src/index.js';
import { createRedisSessionStore } from '../../src/store/redis/index.js';
import { SUPPORT_WORKFLOW, quietLogger } from '../proxy/helpers.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

const SESSIONS = 30;
const STALL_MS = 30_000;
/** The bound each call must stay within while Redis does not answer (the store's default wait is 250 ms). */
const CALL_BOUND_MS = 1000;

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const verify = { id: 'v', name: 'verify_identity', args: {} };
const refund = { id: 'r', name: 'issue_refund', args: {} };

it(
  'keeps every stored session through a 30 s stall of Redis: calls fail open within the bound, and write nothing later',
  async () => {
    const workflow = await loadWorkflow(SUPPORT_WORKFLOW);
    const logger = quietLogger();
    const store = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: 'stall:', logger });
    const observer = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: 'stall:', logger: quietLogger() });
    await Promise.all([store.ready(), observer.ready()]);
    const monitor = createMonitor({ workflow, store, logger });
    const ids = Array.from({ length: SESSIONS }, (_, index) => `stalled-${index}`);

    // Each session verified the customer: the state a lost write would forget.
    for (const id of ids) {
      await monitor.afterModel(id, { content: '', toolCalls: [verify] });
      expect((await monitor.beforeTool(id, verify)).action).toBe('allow');
    }
    await store.settled();
    const before = await Promise.all(ids.map((id) => observer.get(id)));
    expect(before.every((session) => session?.workflow.trace.join() === 'greeting,verify_identity')).toBe(true);

    redis.pause();
    const durations: number[] = [];
    const timed = async <T>(call: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      try {
        return await call();
      } finally {
        durations.push(performance.now() - started);
      }
    };
    const stallEnds = Date.now() + STALL_MS;
    try {
      // Calls keep coming for every session, each one fails open: the session reads as fresh, the refund is refused.
      await Promise.all(
        ids.map(async (id) => {
          while (Date.now() < stallEnds) {
            await timed(() => monitor.afterModel(id, { content: '', toolCalls: [refund] }));
            await timed(() => monitor.beforeTool(id, refund));
            await sleep(200);
          }
        }),
      );
    } finally {
      redis.resume();
    }

    // Redis now runs what sat in the sockets; the store lets go of the leases its unanswered calls took.
    for (let tries = 0; tries < 250 && !store.healthy; tries++) await sleep(20);
    await store.settled();
    await sleep(100);
    const after = await Promise.all(ids.map((id) => observer.get(id)));
    expect(after.map((session) => session?.workflow.trace)).toEqual(before.map((session) => session?.workflow.trace));
    expect(after).toEqual(before);

    expect(durations.length).toBeGreaterThanOrEqual(SESSIONS * 2);
    expect(Math.max(...durations)).toBeLessThan(CALL_BOUND_MS);
    expect(store.misses().unavailable).toBeGreaterThan(0);
    expect(monitor.misses().store).toBeGreaterThan(0);

    // The next call of each session continues the stored one at once: no lease left over from the stall holds it up.
    for (const id of ids) {
      await monitor.afterModel(id, { content: '', toolCalls: [refund] });
      expect((await monitor.beforeTool(id, refund)).action).toBe('allow');
    }
    expect(store.misses()['lock-timeout']).toBeUndefined();
    await Promise.all([store.close(), observer.close()]);
  },
  90_000,
);
