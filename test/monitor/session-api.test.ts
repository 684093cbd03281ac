import { metrics, trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClosedError, createMonitor, parseWorkflow, type MonitorSession } from '../../src/index.js';
import { createRedisSessionStore } from '../../src/store/redis/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { startRedisServer, type RedisServer } from '../store/redis-server.js';
import { call, recordingLogger, say, supportWorkflow as workflow } from './fixtures.js';

/** Guards of every kind, and a critical constraint that refuses a move the transitions list. */
const guarded = parseWorkflow(`
name: guarded
states:
  - { name: start, initial: true, classification: { patterns: ["^start"] } }
  - { name: lookup, classification: { tool_calls: [lookup] } }
  - { name: refund, classification: { tool_calls: [refund] } }
  - { name: escalate, classification: { tool_calls: [escalate] } }
  - { name: close, terminal: true, classification: { tool_calls: [close] } }
transitions:
  - { from: start, to: lookup }
  - { from: start, to: refund, guard: { min_confidence: 0.9, required_metadata: [order_id] } }
  - { from: start, to: escalate, guard: { expression: "metadata.tier == 'gold'" } }
  - { from: start, to: close }
constraints:
  - { name: lookup_first, type: precedence, trigger: close, target: lookup, severity: critical }
`);

describe('monitor.validNextStates', () => {
  it('lists the moves whose guards pass, and says why each other one is not valid', async () => {
    const monitor = createMonitor({ workflow: guarded, logger: recordingLogger() });
    const next = await monitor.validNextStates('s1');
    expect(next).toMatchObject({ sessionId: 's1', state: 'start', status: 'active', valid: ['lookup'] });
    const why = Object.fromEntries(next.moves.map((move) => [move.to, move.reasons]));
    expect(why).toEqual({
      lookup: [],
      refund: ["guard: metadata lacks 'order_id' (required_metadata)"],
      escalate: ['guard: expression "metadata.tier == \'gold\'" is false'],
      close: ["breaks critical constraint 'lookup_first': " + next.moves.find((move) => move.to === 'close')!.violations[0]!.message],
    });
    expect(next.moves.find((move) => move.to === 'close')).toMatchObject({ allowed: true, valid: false, refused: true, violations: [{ constraint: 'lookup_first', severity: 'critical' }] });
  });

  it('judges guards with the classification given', async () => {
    const monitor = createMonitor({ workflow: guarded, logger: recordingLogger() });
    const low = await monitor.validNextStates('s1', { confidence: 0.5, metadata: { order_id: 'A1', tier: 'gold' } });
    expect(low.valid).toEqual(['lookup', 'escalate']);
    expect(low.moves.find((move) => move.to === 'refund')!.reasons).toEqual(['guard: confidence 0.5 is below min_confidence 0.9']);
    expect((await monitor.validNextStates('s1', { confidence: 0.95, metadata: { order_id: 'A1' } })).valid).toEqual(['lookup', 'refund']);
  });

  it('refuses a classification a guard cannot read, naming the field', async () => {
    const monitor = createMonitor({ workflow: guarded, logger: recordingLogger() });
    await expect(monitor.validNextStates('s1', { confidence: 1.5 })).rejects.toThrow('Invalid option `confidence`: received 1.5. Pass a number from 0 to 1, the confidence of the classification the move would come from; the default is 1.');
    await expect(monitor.validNextStates('s1', { metadata: ['order_id'] as never })).rejects.toThrow('Invalid option `metadata`: received ["order_id"]. Pass an object of the step metadata guards read');
    await expect(monitor.validNextStates('s1', null as never)).rejects.toThrow('Invalid option `input`: received null.');
  });

  it('follows the session: after a lookup, closing is valid; an ended session answers as the next call would find it, new', async () => {
    const monitor = createMonitor({ workflow: guarded, logger: recordingLogger() });
    await monitor.afterModel('s1', call('lookup'));
    expect((await monitor.beforeTool('s1', { id: 'lookup-1', name: 'lookup', args: {} })).action).toBe('allow');
    const next = await monitor.validNextStates('s1');
    expect(next.state).toBe('lookup');
    // Nothing is listed out of `lookup`: any state may follow.
    expect(next.valid).toEqual(['start', 'refund', 'escalate', 'close']);
    await monitor.endSession('s1');
    expect(await monitor.validNextStates('s1')).toMatchObject({ state: 'start', status: 'active', valid: ['lookup'] });
  });
});

describe('monitor.history', () => {
  it('gives each step with its state, method, confidence and time, and what the session started in', async () => {
    const clock = createFakeClock(1_700_000_000_000);
    const monitor = createMonitor({ workflow, clock, logger: recordingLogger() });
    expect(await monitor.history('s1')).toBeUndefined();
    await monitor.afterModel('s1', say('hello!'));
    clock.advance(1500);
    await monitor.afterModel('s1', say('tell me more'));
    clock.advance(250);
    await monitor.afterModel('s1', call('issue_refund'));
    expect((await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} })).action).toBe('deny');
    const history = await monitor.history('s1');
    expect(history).toEqual({
      sessionId: 's1',
      initial: { state: 'greeting', at: 1_700_000_000_000 },
      state: 'identify_issue',
      steps: [
        { step: 1, turn: 1, state: 'greeting', method: 'pattern', confidence: expect.any(Number), at: 1_700_000_000_000 },
        { step: 2, turn: 2, state: 'identify_issue', method: 'pattern', confidence: expect.any(Number), at: 1_700_000_001_500 },
        { step: 3, turn: 3, state: 'account_action', method: 'tool_call', confidence: 1, at: 1_700_000_001_750, refused: true },
      ],
      total: 3,
      dropped: 0,
      limit: 100,
    });
  });

  it('is bounded by historyLimit and says how many steps were dropped', async () => {
    const monitor = createMonitor({ workflow, historyLimit: 2, logger: recordingLogger() });
    for (const text of ['hello', 'tell me more', 'tell me more', 'anything else?']) await monitor.afterModel('s1', say(text));
    const history = (await monitor.history('s1'))!;
    expect(history.steps.map((step) => step.step)).toEqual([3, 4]);
    expect(history).toMatchObject({ total: 4, dropped: 2, limit: 2 });
  });

  it('keeps a step time as a small offset: the stored session stays small', async () => {
    const clock = createFakeClock(1_700_000_000_000);
    const monitor = createMonitor({ workflow, clock, logger: recordingLogger() });
    await monitor.afterModel('s1', say('hello'));
    clock.advance(42);
    await monitor.afterModel('s1', say('tell me more'));
    const session = (await monitor.session('s1'))!;
    expect(session.steps.map((step) => step.elapsedMs)).toEqual([0, 42]);
    expect(JSON.stringify(session).length).toBeLessThan(4096);
  });

  it('reads sessions stored before step times were kept: the steps have no time', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', say('hello'));
    const stored = (await monitor.session('s1'))!;
    const old: MonitorSession = { ...stored, steps: stored.steps.map(({ elapsedMs: _dropped, ...step }) => step) };
    const replay = createMonitor({ workflow, logger: recordingLogger(), store: { get: () => old, set: () => {}, delete: () => {} } });
    expect((await replay.history('s1'))!.steps[0]).not.toHaveProperty('at');
  });
});

describe('monitor.resetSession', () => {
  it('puts the session back in its initial state, as new: trace, steps, verdicts and pending guidance go', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', say('hello'));
    await monitor.afterModel('s1', say('here are the internal notes'));
    expect((await monitor.peek('s1')).action).toBe('proceed');
    expect((await monitor.report('s1'))!.violations).toHaveLength(1);
    await monitor.resetSession('s1');
    const report = (await monitor.report('s1'))!;
    expect(report).toMatchObject({ state: 'greeting', trace: ['greeting'], steps: [], violations: [], status: 'active' });
    expect(await monitor.peek('s1')).toEqual({ action: 'proceed', interventions: [] });
    expect((await monitor.history('s1'))!.total).toBe(0);
  });

  it('reopens an ended session, and leaves other sessions alone', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    await monitor.afterModel('s1', say('hello'));
    await monitor.afterModel('s2', say('tell me more'));
    await monitor.endSession('s1');
    await monitor.resetSession('s1');
    expect((await monitor.report('s1'))!.status).toBe('active');
    expect((await monitor.report('s2'))!.state).toBe('identify_issue');
  });

  it('forgets the loop history too', async () => {
    const run = async (reset: boolean) => {
      const monitor = createMonitor({ workflow, loops: { monologue: 3 }, logger: recordingLogger() });
      for (let turn = 0; turn < 2; turn++) await monitor.afterModel('s1', say('tell me more'));
      if (reset) await monitor.resetSession('s1');
      return (await monitor.afterModel('s1', say('tell me more'))).loop?.kind;
    };
    expect(await run(false)).toBe('monologue');
    expect(await run(true)).toBeUndefined();
  });
});

describe('monitor.close', () => {
  it('waits for the calls in flight, then refuses new ones with a ClosedError; closing twice is one close', async () => {
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    const inFlight = monitor.afterModel('s1', say('hello'));
    const first = monitor.close();
    expect(monitor.close()).toBe(first);
    await expect(inFlight).resolves.toMatchObject({ classifications: [{ state: 'greeting' }] });
    await first;
    for (const refused of [monitor.afterModel('s1', say('hello')), monitor.beforeModel('s1', { messages: [] }), monitor.report('s1'), monitor.history('s1'), monitor.validNextStates('s1'), monitor.resetSession('s1'), monitor.endSession('s1'), monitor.noteRefusals('s1', ['refused'])]) {
      const error = await refused.then(() => undefined, (caught: unknown) => caught);
      expect(ClosedError.isInstance(error)).toBe(true);
    }
    await expect(monitor.afterModel('s1', say('hello'))).rejects.toThrow('monitor.afterModel() was called after monitor.close(): a closed monitor takes no more calls. Create a new one, or close it only once the agent is done with it.');
    await expect(monitor.beforeTool('s1', { id: 'x', name: 'verify_identity', args: {} })).rejects.toMatchObject({ code: 'CLOSED', component: 'monitor', method: 'beforeTool' });
  });

  it('flushes the registered OpenTelemetry provider: spans a batch processor held are exported', async () => {
    const exporter = new InMemorySpanExporter();
    // A long delay: without a flush, nothing would be exported before the test ends.
    const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 60_000 })] });
    trace.setGlobalTracerProvider(provider);
    try {
      const monitor = createMonitor({ workflow, logger: recordingLogger() });
      await monitor.afterModel('s1', say('hello'));
      expect(exporter.getFinishedSpans()).toEqual([]);
      await monitor.close();
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['panoptes.check']);
    } finally {
      trace.disable();
      metrics.disable();
      await provider.shutdown();
    }
  });
});

describe('monitor.close with a Redis store', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => redis?.stop());

  it('waits for the writes in flight, so another process reads the last step', async () => {
    const store = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: 'close:', logger: recordingLogger() });
    await store.ready();
    const monitor = createMonitor({ workflow, store, logger: recordingLogger() });
    await monitor.afterModel('s1', say('hello'));
    await monitor.afterModel('s1', say('tell me more'));
    await monitor.close();
    const other = createRedisSessionStore<MonitorSession>({ url: redis.url, keyPrefix: 'close:', logger: recordingLogger() });
    await other.ready();
    try {
      expect((await other.get('s1'))!.workflow.state).toBe('identify_issue');
    } finally {
      await other.close();
      await store.close();
    }
  });
});
