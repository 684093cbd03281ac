import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFactStore, createLoopDetector, createMemorySessionStore, createMonitor, createSentinel, parseRulebase, type MonitorSession, type SessionStore } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { call, recordingLogger, say, supportWorkflow as workflow } from '../monitor/fixtures.js';
import { createOtel, eventNames } from './harness.js';

const request = () => ({ messages: [{ role: 'user' as const, content: 'hi' }] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

describe('monitor telemetry', () => {
  it('a refused tool call: a guard span marked as a guardrail, with the reason and constraints, an event and a counted refusal', async () => {
    const otel = createOtel();
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter });
    await monitor.afterModel('s1', say('tell me more'));
    await monitor.afterModel('s1', call('issue_refund'));
    const decision = await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: { amount: 40 } });
    expect(decision.action).toBe('deny');

    const guard = otel.span('panoptes.guard issue_refund');
    expect(guard.attributes).toMatchObject({
      'gen_ai.operation.name': 'panoptes.guard',
      'gen_ai.conversation.id': 's1',
      'gen_ai.tool.name': 'issue_refund',
      'gen_ai.tool.call.id': 'issue_refund-1',
      'openinference.span.kind': 'GUARDRAIL',
      'langfuse.observation.type': 'guardrail',
      'langfuse.observation.level': 'WARNING',
      'panoptes.guard.result': 'deny',
      'panoptes.guard.by': 'workflow',
      'panoptes.state': 'account_action',
      'panoptes.constraints': ['verify_first'],
    });
    expect(guard.attributes['panoptes.guard.reason']).toMatch(/refused.*verify_identity/);
    expect(guard.attributes['gen_ai.tool.call.arguments']).toBeUndefined(); // no content without captureContent
    expect(eventNames(guard)).toContain('panoptes.refusal');
    expect(await otel.points('panoptes.refusals')).toEqual([{ attributes: { 'gen_ai.tool.name': 'issue_refund', 'panoptes.refused_by': 'workflow' }, value: 1 }]);
    expect((await otel.points('panoptes.guard.duration'))[0]?.value).toBe(1);
    expect(otel.spans().filter((span) => span.name === 'panoptes.check')).toHaveLength(2);
  });

  it('a violation and its intervention: the check span classifies and records the violation, the next call an intervene span', async () => {
    const otel = createOtel();
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter, agentName: 'support-bot' });
    await monitor.afterModel('s1', say('here are the internal notes'));
    const check = otel.span('panoptes.check');
    expect(check.attributes).toMatchObject({ 'gen_ai.agent.name': 'support-bot', 'panoptes.state': 'leak', 'panoptes.classification.method': 'pattern', 'panoptes.classification.confidence': 0.9, 'panoptes.workflow': 'support' });
    expect(eventNames(check)).toEqual(expect.arrayContaining(['panoptes.state_change', 'panoptes.violation']));
    const violation = check.events.find((event) => event.name === 'panoptes.violation')!;
    expect(violation.attributes).toMatchObject({ 'panoptes.constraint': 'no_leak', 'panoptes.severity': 'error' });
    expect(await otel.points('panoptes.violations')).toEqual([{ attributes: { 'panoptes.constraint': 'no_leak', 'panoptes.severity': 'error' }, value: 1 }]);
    expect((await otel.points('panoptes.classification.duration'))[0]?.value).toBe(1);

    const before = await monitor.beforeModel('s1', request());
    expect(before.action).toBe('proceed');
    const intervene = otel.span('panoptes.before_model');
    expect(intervene.attributes).toMatchObject({ 'panoptes.action': 'proceed', 'gen_ai.conversation.id': 's1' });
    expect(intervene.events.map((event) => event.attributes)).toEqual([{ 'panoptes.intervention.name': 'no_leak', 'panoptes.intervention.strategy': 'user-message-inject' }]);
    expect(await otel.points('panoptes.interventions')).toEqual([{ attributes: { 'panoptes.intervention.strategy': 'user-message-inject' }, value: 1 }]);
    // A call with nothing due makes no span.
    await monitor.beforeModel('s1', request());
    expect(otel.spans().filter((span) => span.name === 'panoptes.before_model')).toHaveLength(1);
  });

  it('a loop: a panoptes.loop span under the check span, an event on it, and a counted loop', async () => {
    const otel = createOtel();
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter, loops: true });
    // The agent talks on without the user (a request ending with its own message): a new user turn would reset the count.
    const onItsOwn = { messages: [...request().messages, { role: 'assistant' as const, content: 'I am still checking on that for you.' }] };
    for (let turn = 0; turn < 3; turn++) {
      await monitor.beforeModel('s1', turn === 0 ? request() : onItsOwn);
      await monitor.afterModel('s1', say('I am still checking on that for you.'));
    }
    const loop = otel.span('panoptes.loop monologue');
    expect(loop.attributes).toMatchObject({ 'panoptes.loop.kind': 'monologue', 'panoptes.loop.action': 'hint', 'panoptes.loop.detection': 1, 'gen_ai.conversation.id': 's1' });
    expect(loop.attributes['panoptes.message']).toBeUndefined(); // it quotes the text: content only
    const checks = otel.spans().filter((span) => span.name === 'panoptes.check');
    const last = checks.at(-1)!;
    expect(loop.parentSpanContext?.spanId).toBe(last.spanContext().spanId);
    expect(eventNames(last)).toContain('panoptes.loop_detected');
    expect(await otel.points('panoptes.loops')).toEqual([{ attributes: { 'panoptes.loop.kind': 'monologue' }, value: 1 }]);
    expect((await otel.points('panoptes.loop_check.duration'))[0]?.value).toBeGreaterThanOrEqual(3);
  });

  it('a fail-open miss: an event with its cause on the check span, and a counted miss', async () => {
    const otel = createOtel();
    const broken: SessionStore<MonitorSession> = {
      ...createMemorySessionStore<MonitorSession>(),
      get: () => {
        throw new Error('store down');
      },
    };
    const monitor = createMonitor({ workflow, logger: recordingLogger(), store: broken, tracer: otel.tracer, meter: otel.meter });
    const after = await monitor.afterModel('s1', say('hello'));
    expect(after.classifications[0]?.state).toBe('greeting');
    const check = otel.span('panoptes.check');
    const miss = check.events.find((event) => event.name === 'panoptes.miss');
    expect(miss?.attributes).toMatchObject({ 'panoptes.miss.cause': 'store', 'error.type': 'Error', 'panoptes.message': 'store down' });
    expect(await otel.points('panoptes.misses')).toEqual([{ attributes: { 'panoptes.miss.cause': 'store' }, value: 1 }]);
  });

  it("nests under the host's active span", async () => {
    const otel = createOtel();
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter });
    await otel.tracer.startActiveSpan('host.model-call', async (host) => {
      await monitor.afterModel('s1', say('hello'));
      host.end();
    });
    const host = otel.span('host.model-call');
    const check = otel.span('panoptes.check');
    expect(check.spanContext().traceId).toBe(host.spanContext().traceId);
    expect(check.parentSpanContext?.spanId).toBe(host.spanContext().spanId);
  });

  it('uses the global providers by default, and costs nothing visible without an SDK', async () => {
    const plain = createMonitor({ workflow, logger: recordingLogger() });
    expect((await plain.afterModel('s1', say('hello'))).classifications[0]?.state).toBe('greeting');
    const otel = createOtel();
    trace.setGlobalTracerProvider(otel.provider);
    metrics.setGlobalMeterProvider(otel.meterProvider);
    try {
      // Registered after the monitor was made: the global proxy tracer, and the meter looked up again, pick it up.
      await plain.afterModel('s2', say('hello'));
      expect(otel.spans().map((span) => span.name)).toEqual(['panoptes.check']);
      expect(await otel.points('panoptes.classification.duration')).toEqual([{ attributes: {}, value: 1 }]);
    } finally {
      trace.disable();
      metrics.disable();
    }
    // Gone again: back to the fast path, nothing recorded.
    await plain.afterModel('s3', say('hello'));
    expect(otel.spans()).toHaveLength(1);
  });
});

describe('telemetry: false', () => {
  it('records nothing, even with a tracer and meter given', async () => {
    const otel = createOtel();
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter, telemetry: false, loops: true });
    await monitor.afterModel('s1', say('here are the internal notes'));
    await monitor.beforeModel('s1', request());
    await monitor.beforeTool('s1', { id: 'x', name: 'issue_refund', args: {} });
    expect(otel.spans()).toEqual([]);
    expect(await otel.points('panoptes.violations')).toEqual([]);
  });
});

describe('privacy', () => {
  const secrets = ['sk-proj-abcdefghijklmnopqrstuvwxyz123456', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'AKIAIOSFODNN7EXAMPLE', 'hunter2-internal-token-99', 'ACME-SECRET-424242'];
  const turnWithSecrets = {
    content: `Here you go: key ${secrets[0]}, Authorization: Bearer ${secrets[1]}, aws ${secrets[2]}, password=${secrets[3]} and ${secrets[4]}. The internal notes say hi.`,
    toolCalls: [{ id: 'c1', name: 'issue_refund', args: { apiKey: secrets[0], headers: { Authorization: `Bearer ${secrets[1]}` }, note: secrets[4] } }],
  };

  it('records content and arguments only with captureContent, and never a secret, whatever the exporter sees', async () => {
    for (const captureContent of [false, true]) {
      const otel = createOtel();
      const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: otel.tracer, meter: otel.meter, captureContent, redactPatterns: [/ACME-SECRET-\d+/], loops: true });
      await monitor.afterModel(`s-${secrets[4]}`, turnWithSecrets);
      await monitor.beforeTool(`s-${secrets[4]}`, turnWithSecrets.toolCalls[0]!);
      await monitor.beforeModel(`s-${secrets[4]}`, request());
      const everything = await otel.everything();
      for (const secret of secrets) expect(everything).not.toContain(secret);
      const check = otel.span('panoptes.check');
      if (captureContent) {
        expect(check.attributes['panoptes.content']).toContain('The internal notes say hi.');
        expect(check.attributes['panoptes.content']).toContain('[REDACTED]');
        expect(otel.span('panoptes.guard issue_refund').attributes['gen_ai.tool.call.arguments']).toContain('[REDACTED]');
      } else {
        expect(everything).not.toContain('internal notes say hi');
        expect(check.attributes['panoptes.content']).toBeUndefined();
      }
    }
  });
});

describe('fail-open', () => {
  it('a span processor or exporter that throws or hangs never affects a call', async () => {
    const throwing: SpanProcessor = {
      onStart: () => {
        throw new Error('processor broke on start');
      },
      onEnd: () => {
        throw new Error('processor broke on end');
      },
      forceFlush: () => new Promise(() => {}),
      shutdown: () => new Promise(() => {}),
    };
    const otel = createOtel({ processors: [throwing] });
    otel.exporter.export = () => {
      throw new Error('exporter broke');
    };
    const logger = recordingLogger();
    const traced = createMonitor({ workflow, logger, clock: createFakeClock(), tracer: otel.tracer, meter: otel.meter, loops: true });
    const plain = createMonitor({ workflow, logger: recordingLogger(), clock: createFakeClock(), loops: true });
    const run = async (monitor: typeof plain) => {
      const results: unknown[] = [];
      results.push((await monitor.afterModel('s1', say('tell me more'))).classifications);
      results.push((await monitor.afterModel('s1', call('issue_refund'))).classifications);
      results.push(await monitor.beforeTool('s1', { id: 'issue_refund-1', name: 'issue_refund', args: {} }));
      results.push((await monitor.beforeModel('s1', request())).action);
      return results;
    };
    expect(await run(traced)).toEqual(await run(plain));
    // Counted as misses and logged once, like any other failure of Panoptes' own.
    expect(traced.misses().telemetry).toBeGreaterThan(0);
    expect(logger.warnings.filter((warning) => warning.includes('OpenTelemetry'))).toHaveLength(1);
  });
});

describe('fail-open: a hanging exporter', () => {
  it('an exporter that never answers holds up no call, behind a simple or a batch processor', async () => {
    const hanging = { export: () => {}, shutdown: () => new Promise<void>(() => {}), forceFlush: () => new Promise<void>(() => {}) };
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(hanging), new BatchSpanProcessor(hanging, { maxExportBatchSize: 1, scheduledDelayMillis: 1 })] });
    const monitor = createMonitor({ workflow, logger: recordingLogger(), tracer: provider.getTracer('panoptes'), loops: true });
    const started = performance.now();
    for (let turn = 0; turn < 20; turn++) {
      await monitor.beforeModel('s1', request());
      await monitor.afterModel('s1', call('issue_refund', `r${turn}`));
      await monitor.beforeTool('s1', { id: `r${turn}`, name: 'issue_refund', args: {} });
    }
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('sentinel telemetry', () => {
  const RULES = `
context current_user "the logged-in user"
data reservation_of(U, R) from get_user(user_id: U) -> R = $.reservations ttl 60s
askable confirms_cancel(R) "Cancel reservation {R}? (yes/no)"
guard cancel_reservation(reservation_id: R) :- reservation_of(current_user, R), confirms_cancel(R).
`;

  it('a refusal: a guard span with the blockers, marked as a guardrail; the data tool fetched for the proof nests under it', async () => {
    const otel = createOtel();
    const facts = createFactStore({ clock: createFakeClock(), seed: { context: { current_user: 'mia' } } });
    const sentinel = createSentinel({
      rulebase: parseRulebase(RULES, { source: 'airline.rules' }),
      facts,
      tools: { get_user: { execute: () => otel.tracer.startActiveSpan('host.get_user', (span) => (span.end(), { reservations: ['NO6JO3'] })) } },
      tracer: otel.tracer,
      meter: otel.meter,
    });
    const result = await sentinel.check('cancel_reservation', { reservation_id: 'NO6JO3' });
    expect(result.allowed).toBe(false);
    const guard = otel.span('panoptes.guard cancel_reservation');
    expect(guard.attributes).toMatchObject({
      'gen_ai.tool.name': 'cancel_reservation',
      'panoptes.guard.result': 'deny',
      'panoptes.guard.by': 'sentinel',
      'panoptes.guard.status': 'blocked',
      'panoptes.guard.blockers': ['ask: confirms_cancel("NO6JO3")'],
      'openinference.span.kind': 'GUARDRAIL',
      'langfuse.observation.type': 'guardrail',
    });
    expect(guard.attributes['panoptes.guard.reason']).toContain('cancel_reservation is not allowed yet');
    expect(otel.span('host.get_user').parentSpanContext?.spanId).toBe(guard.spanContext().spanId);
    expect(await otel.points('panoptes.refusals')).toEqual([{ attributes: { 'gen_ai.tool.name': 'cancel_reservation', 'panoptes.refused_by': 'sentinel' }, value: 1 }]);
  });
});

describe('loop detector telemetry', () => {
  it('a standalone detector reports loops to its own tracer and meter', async () => {
    const otel = createOtel();
    const detector = createLoopDetector({ tracer: otel.tracer, meter: otel.meter, logger: recordingLogger() });
    for (let step = 0; step < 4; step++) await detector.observe('s1', { toolCalls: [{ name: 'get_order', args: { id: 1 } }], toolResults: [{ name: 'get_order', content: 'pending' }] } as never);
    expect(otel.spans().map((span) => span.name)).toEqual(['panoptes.loop repeated-action']);
    expect(await otel.points('panoptes.loops')).toEqual([{ attributes: { 'panoptes.loop.kind': 'repeated-action' }, value: 1 }]);
    expect(detector.sessionCount).toBe(1);
  });
});
