/**
 * The Redis session store against a real redis-server on loopback (test/store/redis-server.ts starts one).
 * Two stores on one server stand for two processes: each has its own client and its own lease tokens.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createMemorySessionStore, createMonitor, loadWorkflow, type ChatMessage, type Monitor, type MonitorSession } from '../../src/index.js';
import { createRedisSessionStore, type RedisSessionStore } from '../../src/store/redis/index.js';
import { SUPPORT_WORKFLOW, quietLogger } from '../proxy/helpers.js';
import { startRedisServer, type RedisServer } from './redis-server.js';

let redis: RedisServer;
const stores: Array<RedisSessionStore<unknown>> = [];
let prefixCount = 0;

function store<Value>(options: Partial<Parameters<typeof createRedisSessionStore>[0]> = {}, prefix = `t${prefixCount}:`) {
  const created = createRedisSessionStore<Value>({ url: redis.url, keyPrefix: prefix, logger: quietLogger(), ...options });
  stores.push(created as RedisSessionStore<unknown>);
  return created;
}

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  prefixCount++;
  await Promise.all(stores.splice(0).map((created) => created.close()));
});

describe('createRedisSessionStore', () => {
  it('rejects bad options at construction, naming the option and the fix', () => {
    expect(() => createRedisSessionStore({})).toThrow('Invalid option `url`: received undefined. Pass either `url` (redis://host:port) or a connected `client`, not both and not neither.');
    expect(() => createRedisSessionStore({ url: 'http://localhost:6379' })).toThrow('Invalid option `url`: received "http://localhost:6379". Pass a Redis URL such as redis://127.0.0.1:6379');
    expect(() => createRedisSessionStore({ url: redis.url, leaseMs: 0 })).toThrow('Invalid option `leaseMs`: received 0. Pass a positive whole number of milliseconds.');
    expect(() => createRedisSessionStore({ url: redis.url, commandTimeoutMs: 0 })).toThrow('Invalid option `commandTimeoutMs`: received 0. Pass a positive whole number of milliseconds.');
    expect(() => createRedisSessionStore({ url: redis.url, commandTimeoutMs: 2.5 })).toThrow('Invalid option `commandTimeoutMs`: received 2.5. Pass a positive whole number of milliseconds.');
  });

  it('keeps sessions as JSON with a TTL, refreshed on every read and write', async () => {
    const sessions = store<{ n: number }>({ ttlMs: 60_000 });
    await sessions.ready();
    expect(await sessions.get('a')).toBeUndefined();
    await sessions.set('a', { n: 1 });
    expect(await sessions.get('a')).toEqual({ n: 1 });
    const raw = createClient({ url: redis.url });
    await raw.connect();
    const ttl = await raw.pTTL(`t${prefixCount}:session:a`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await sessions.delete('a');
    expect(await sessions.get('a')).toBeUndefined();
    raw.destroy();
  });

  it('works with a client the application already holds, and leaves it open', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    const sessions = createRedisSessionStore<string>({ client, keyPrefix: `t${prefixCount}:` });
    await sessions.set('x', 'value');
    expect(await sessions.get('x')).toBe('value');
    await sessions.close();
    expect(client.isReady).toBe(true);
    client.destroy();
  });

  it('serialises one session across processes: concurrent read-modify-write calls through two stores lose no update', async () => {
    const first = store<number>();
    const second = store<number>();
    await Promise.all([first.ready(), second.ready()]);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 2, maxLength: 24 }), async (which) => {
        const session = `counter-${run++}`;
        const seen: number[] = [];
        await Promise.all(
          which.map((useFirst) => {
            const sessions = useFirst ? first : second;
            return sessions.exclusive(session, async () => {
              const value = (await sessions.get(session)) ?? 0;
              seen.push(value);
              await new Promise((resolve) => setImmediate(resolve)); // let the other process try to get in
              await sessions.set(session, value + 1);
            });
          }),
        );
        expect(await first.get(session)).toBe(which.length);
        expect([...seen].sort((a, b) => a - b)).toEqual(which.map((_, index) => index));
      }),
      { numRuns: 25 },
    );
    expect(first.misses()).toEqual({});
    expect(second.misses()).toEqual({});
  });

  it('drops the write of a holder that stalled past its lease, so it cannot overwrite the newer state', async () => {
    // A stalled process runs no timers: its lease is never renewed.
    const stalledTimers = { setTimeout: () => undefined, clearTimeout: () => {} };
    const logger = quietLogger();
    const slow = store<string>({ leaseMs: 50, timers: stalledTimers, logger });
    const fast = store<string>({ leaseMs: 50, lockWaitMs: 2000 });
    await Promise.all([slow.ready(), fast.ready()]);
    const slowCall = slow.exclusive('s', async () => {
      await new Promise((resolve) => setTimeout(resolve, 200)); // outlives its 50 ms lease
      await slow.set('s', 'stale');
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    await fast.exclusive('s', async () => fast.set('s', 'newer'));
    await slowCall; // resolves: the task's own result is not the store's to fail
    await slow.settled(); // the release is answered after the call returns; the miss is counted then
    expect(await fast.get('s')).toBe('newer');
    expect(slow.misses()).toEqual({ 'lease-lost': 1 });
    expect(logger.lines).toContain('[panoptes redis] A call for one session held its lease past 50 ms without renewing it (a stalled process, or a stopped Redis) and lost it; its write was dropped so it cannot overwrite a newer state.');
  });

  it('renews the lease of a live holder whose call outlasts it, so no other process gets in and its write is kept', async () => {
    const slow = store<string>({ leaseMs: 200 });
    const other = store<string>({ leaseMs: 200, lockWaitMs: 5000 });
    await Promise.all([slow.ready(), other.ready()]);
    const order: string[] = [];
    const slowCall = slow.exclusive('s', async () => {
      await new Promise((resolve) => setTimeout(resolve, 700)); // three and a half leases long, renewed every 66 ms
      await slow.set('s', 'first');
      order.push('slow done');
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const seen = await other.exclusive('s', async () => {
      order.push('other in');
      return other.get('s');
    });
    await slowCall;
    await Promise.all([slow.settled(), other.settled()]);
    expect(order).toEqual(['slow done', 'other in']);
    expect(seen).toBe('first');
    expect(slow.misses()).toEqual({});
    expect(other.misses()).toEqual({});
  });

  it('returns before its release is answered, and the next holder, here or elsewhere, reads the write', async () => {
    const first = store<number>();
    const second = store<number>();
    await Promise.all([first.ready(), second.ready()]);
    await first.exclusive('w', () => first.set('w', 1));
    // Straight after: the release may still be in flight; another process waits for it, this one queues behind it.
    const [here, elsewhere] = await Promise.all([first.exclusive('w', () => first.get('w')), second.exclusive('w', () => second.get('w'))]);
    expect(here).toBe(1);
    expect(elsewhere).toBe(1);
    await Promise.all([first.settled(), second.settled()]);
    expect(first.misses()).toEqual({});
    expect(second.misses()).toEqual({});
  });

  it('bounds a call on a Redis that stops answering by commandTimeoutMs, then fails fast; such a call writes nothing and lets go of its lease', async () => {
    const logger = quietLogger();
    const sessions = store<string>({ commandTimeoutMs: 100, logger });
    const other = store<string>({ lockWaitMs: 100 }); // leaseMs stays 5000: a lease left over would hold it up
    await Promise.all([sessions.ready(), other.ready()]);
    await sessions.exclusive('h', () => sessions.set('h', 'before'));
    await sessions.settled();
    redis.pause();
    const elapsed = async <T>(call: () => Promise<T>) => {
      const started = performance.now();
      return { result: await call(), ms: performance.now() - started };
    };
    let first, second;
    try {
      // Fail-open: the task runs once the acquire has waited commandTimeoutMs; its read and write reject at once.
      first = await elapsed(() =>
        sessions.exclusive('h', async () => [await sessions.get('h').catch((error: Error) => error.message), await sessions.set('h', 'during').catch((error: Error) => error.message)]),
      );
      // Nothing sent now could be answered before the acquire still waiting: later calls do not wait at all.
      second = await elapsed(() => sessions.exclusive('h', async () => 'ran'));
      await expect(sessions.get('h')).rejects.toThrow('Redis has not answered a command for over 100 ms; nothing was sent (fail-open).');
      expect(sessions.healthy).toBe(false);
    } finally {
      redis.resume();
    }
    expect(first.result).toEqual([
      'Redis did not answer this call in time; the session was not read, and nothing the call writes is stored.',
      'Redis did not answer this call in time; its session write was dropped so that it cannot land over a newer session later.',
    ]);
    expect(first.ms).toBeGreaterThanOrEqual(90);
    expect(first.ms).toBeLessThan(1000);
    expect(second.result).toBe('ran');
    expect(second.ms).toBeLessThan(50);
    expect(sessions.misses()).toEqual({ unavailable: 2 });
    expect(logger.lines).toEqual(['[panoptes redis] Redis is unreachable or did not answer within 100 ms; a call ran without its session, and nothing it wrote was stored (sessions are not shared until Redis is back).']);

    // Redis now runs the acquire that sat in the socket, which takes the lease; the release sent behind it lets go.
    for (let tries = 0; tries < 100 && !sessions.healthy; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    await sessions.settled();
    expect(await other.exclusive('h', () => other.get('h'))).toBe('before');
    expect(other.misses()).toEqual({});
    expect(await sessions.exclusive('h', () => sessions.get('h'))).toBe('before');
  });

  it('drops a write based on an older version of the session: the newer one survives, counted and logged once', async () => {
    const logger = quietLogger();
    const late = store<string>({ logger });
    const other = store<string>();
    await Promise.all([late.ready(), other.ready()]);
    await late.set('v', 'one'); // never read: written only because there is none
    expect(await late.get('v')).toBe('one'); // version 1, remembered for the next write outside a call
    await other.exclusive('v', async () => other.set('v', `${await other.get('v')} two`)); // version 2
    await other.settled();
    await late.set('v', 'one, stale'); // based on version 1: the write that comes late
    await late.set('v', 'one, stale again');
    expect(await other.get('v')).toBe('one two');
    expect(late.misses()).toEqual({ 'stale-write': 2 });
    expect(logger.lines).toEqual(['[panoptes redis] A session write was based on an older version of the session (another process wrote it since, or the write came late); it was dropped so it cannot overwrite the newer session.']);
    expect(await late.get('v')).toBe('one two'); // read again, the next write is based on the newer version
    await late.set('v', 'three');
    expect(await other.get('v')).toBe('three');
  });

  it('checks the version under the lease too: a holder whose session was written since it read it loses its write', async () => {
    const holder = store<string>();
    const impatient = store<string>({ lockWaitMs: 20 });
    await Promise.all([holder.ready(), impatient.ready()]);
    await holder.exclusive('x', () => holder.set('x', 'zero'));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let inside!: () => void;
    const holding = new Promise<void>((resolve) => (inside = resolve));
    const held = holder.exclusive('x', async () => {
      const value = await holder.get('x');
      inside();
      await gate;
      await holder.set('x', `${value} holder`);
    });
    await holding;
    // Past lockWaitMs the other process goes on without the lease, reads version 1 and writes version 2 first.
    await impatient.exclusive('x', async () => impatient.set('x', `${await impatient.get('x')} impatient`));
    await impatient.settled();
    open();
    await held;
    await holder.settled();
    expect(await impatient.get('x')).toBe('zero impatient');
    expect(impatient.misses()).toEqual({ 'lock-timeout': 1 });
    expect(holder.misses()).toEqual({ 'stale-write': 1 });
    expect(await holder.exclusive('x', () => holder.get('x'))).toBe('zero impatient'); // and the lease was let go
  });

  it('reads a session stored as plain JSON by an earlier release as version 0, and writes over it', async () => {
    const sessions = store<{ n: number }>();
    await sessions.ready();
    const raw = createClient({ url: redis.url });
    await raw.connect();
    await raw.set(`t${prefixCount}:session:old`, JSON.stringify({ n: 1 }));
    await sessions.exclusive('old', async () => sessions.set('old', { n: (await sessions.get('old'))!.n + 1 }));
    await sessions.settled();
    expect(await raw.get(`t${prefixCount}:session:old`)).toBe('1:{"n":2}');
    expect(sessions.misses()).toEqual({});
    raw.destroy();
  });

  it('sends its scripts by SHA, and loads them again after Redis forgot them', async () => {
    const sessions = store<string>();
    await sessions.ready();
    await sessions.exclusive('f', () => sessions.set('f', 'one'));
    const raw = createClient({ url: redis.url });
    await raw.connect();
    await raw.sendCommand(['SCRIPT', 'FLUSH']);
    await sessions.exclusive('f', async () => sessions.set('f', `${await sessions.get('f')} two`));
    await sessions.settled();
    expect(await sessions.get('f')).toBe('one two');
    expect(sessions.misses()).toEqual({});
    expect(sessions.healthy).toBe(true);
    raw.destroy();
  });
});

describe('monitors sharing sessions through Redis', () => {
  /** The demo's calls (examples/support-demo.ts), each made by `monitorFor(call)`. */
  async function demo(monitorFor: (call: number) => Monitor, sessionId: string) {
    let call = 0;
    const next = () => monitorFor(call++);
    const messages = [{ role: 'user' as const, content: 'Refund order A-1042 please.' }];
    await next().beforeModel(sessionId, { messages });
    await next().afterModel(sessionId, { content: '', toolCalls: [{ id: 'c1', name: 'issue_refund', args: {} }] });
    const refused = await next().beforeTool(sessionId, { id: 'c1', name: 'issue_refund', args: {} });
    const corrected = await next().beforeModel(sessionId, { messages });
    await next().afterModel(sessionId, { content: '', toolCalls: [{ id: 'c2', name: 'verify_identity', args: {} }] });
    const verified = await next().beforeTool(sessionId, { id: 'c2', name: 'verify_identity', args: {} });
    await next().beforeModel(sessionId, { messages });
    await next().afterModel(sessionId, { content: '', toolCalls: [{ id: 'c3', name: 'issue_refund', args: {} }] });
    const refunded = await next().beforeTool(sessionId, { id: 'c3', name: 'issue_refund', args: {} });
    await next().beforeModel(sessionId, { messages });
    await next().afterModel(sessionId, { content: 'Your refund is on its way. Is there anything else I can help with?', toolCalls: [] });
    const verdicts = [refused.action, corrected.action === 'proceed' ? corrected.interventions.map((entry) => entry.name) : 'block', verified.action, refunded.action];
    const report = await next().endSession(sessionId);
    return { verdicts, report: { ...report, sessionId: 'same' } };
  }

  it('two monitors taking alternate calls of one conversation produce exactly the trace and verdicts one monitor does', async () => {
    const workflow = await loadWorkflow(SUPPORT_WORKFLOW);
    const clock = { now: () => 1_700_000_000_000 };
    const alone = createMonitor({ workflow, clock, store: createMemorySessionStore<MonitorSession>({ clock }) });
    const expected = await demo(() => alone, 'solo');

    const [storeA, storeB] = [store<MonitorSession>(), store<MonitorSession>()];
    await Promise.all([storeA.ready(), storeB.ready()]);
    const a = createMonitor({ workflow, clock, store: storeA });
    const b = createMonitor({ workflow, clock, store: storeB });
    const shared = await demo((call) => (call % 2 === 0 ? a : b), 'shared');
    expect(shared).toEqual(expected);
    expect(expected.verdicts).toEqual(['deny', ['verify_first'], 'allow', 'allow']);
    expect(a.misses()).toEqual({});
    expect(b.misses()).toEqual({});
  });

  it('fails open while Redis is down (calls pass, counted, unhealthy), and shares sessions written after it is back', async () => {
    const workflow = await loadWorkflow(SUPPORT_WORKFLOW);
    const logger = quietLogger();
    const sessions = store<MonitorSession>({ logger });
    const other = store<MonitorSession>();
    await Promise.all([sessions.ready(), other.ready()]);
    const monitor = createMonitor({ workflow, store: sessions, logger });
    await monitor.afterModel('before-crash', { content: 'Hello! How can I help you today?', toolCalls: [] });
    expect(sessions.healthy).toBe(true);

    await redis.kill();
    const during = await monitor.afterModel('during', { content: '', toolCalls: [{ id: 'x', name: 'verify_identity', args: {} }] });
    expect(during.classifications[0]!.state).toBe('verify_identity');
    expect((await monitor.beforeTool('during', { id: 'x', name: 'verify_identity', args: {} })).action).toBe('allow');
    expect(sessions.healthy).toBe(false);
    expect(sessions.misses().unavailable).toBeGreaterThan(0);
    expect(monitor.misses().store).toBeGreaterThan(0);
    expect(logger.lines.some((line) => line.startsWith('[panoptes redis] Redis is unreachable'))).toBe(true);

    await redis.restart();
    await sessions.ready();
    await other.ready();
    // Wait for the client to see the server again (it reconnects on its own, with backoff up to 1 s).
    for (let tries = 0; tries < 100 && !sessions.healthy; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    await monitor.afterModel('after', { content: '', toolCalls: [{ id: 'y', name: 'verify_identity', args: {} }] });
    await monitor.beforeTool('after', { id: 'y', name: 'verify_identity', args: {} });
    expect(sessions.healthy).toBe(true);
    const readElsewhere = await other.get('after');
    expect(readElsewhere?.workflow.trace).toEqual(['greeting', 'verify_identity']);
  });

  it('share the loop history too: alternate calls find the loop one monitor finds, which two unshared monitors miss', async () => {
    const workflow = await loadWorkflow(SUPPORT_WORKFLOW);
    /** An agent polling the same lookup with the same result: repeated-action after 4 identical calls. */
    async function run(monitorFor: (call: number) => Monitor) {
      const messages: ChatMessage[] = [{ role: 'user', content: 'Where is my order A-1042?' }];
      const seen: Array<string | null> = [];
      for (let turn = 0; turn < 6; turn++) {
        const before = await monitorFor(turn).beforeModel('looping', { messages });
        seen.push(before.action === 'block' ? 'block' : before.interventions.map((entry) => entry.name).join(',') || null);
        const call = { id: `c${turn}`, name: 'lookup_customer', args: { order: 'A-1042' } };
        const after = await monitorFor(turn).afterModel('looping', { content: '', toolCalls: [call] });
        seen.push(after.loop?.kind ?? null);
        await monitorFor(turn).beforeTool('looping', call);
        messages.push({ role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', content: 'Status: in transit.', toolCallId: call.id, name: call.name });
      }
      return seen;
    }
    const alone = createMonitor({ workflow, loops: true });
    const expected = await run(() => alone);
    expect(expected.filter((entry) => entry !== null).length).toBeGreaterThan(0);

    const [storeA, storeB] = [store<MonitorSession>(), store<MonitorSession>()];
    await Promise.all([storeA.ready(), storeB.ready()]);
    const a = createMonitor({ workflow, loops: true, store: storeA });
    const b = createMonitor({ workflow, loops: true, store: storeB });
    expect(await run((turn) => (turn % 2 === 0 ? a : b))).toEqual(expected);

    const apart = [createMonitor({ workflow, loops: true }), createMonitor({ workflow, loops: true })];
    expect(await run((turn) => apart[turn % 2]!)).not.toEqual(expected);
  });
});

