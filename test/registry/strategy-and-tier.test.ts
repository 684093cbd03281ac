import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import {
  createMonitor,
  createRegistry,
  defineClassificationTier,
  defineInterventionStrategy,
  escalate,
  initialInterventionState,
  parseWorkflow,
  planInterventions,
  scheduleIntervention,
  validateWorkflow,
  type ChatMessage,
} from '../../src/index.js';
import { call, recordingLogger, say } from '../monitor/fixtures.js';
import { LOOKUP_WORKFLOW, maxCount } from './fixtures.js';

const request = (): { messages: ChatMessage[] } => ({ messages: [{ role: 'system', content: 'You help with orders.' }, { role: 'user', content: 'Where is my order?' }] });

/** A strategy of our own: the guidance as a developer message at the end, labelled. */
const developerNote = defineInterventionStrategy({
  name: 'developer_note',
  schema: z.strictObject({ label: z.string().default('Policy') }),
  apply: (messages, notes) => [...messages, ...notes.map(({ text, options }) => ({ role: 'user' as const, content: `[${options.label}] ${text}` }))],
});

const withStrategy = (intervention: string) => LOOKUP_WORKFLOW.replace('  stop_looking: "Stop looking the order up: {details}"', intervention);

describe('a registered intervention strategy', () => {
  const registry = createRegistry().register(maxCount, developerNote);

  it('delivers the guidance its way, with its options from the workflow', async () => {
    const workflow = parseWorkflow(withStrategy('  stop_looking: { template: "Stop looking: {details}", strategy: developer_note, options: { label: Ops } }'), { registry });
    expect(workflow.intervention('stop_looking')).toMatchObject({ strategy: 'developer_note', options: { label: 'Ops' } });
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    for (const turn of [call('lookup_order', 'l1'), say('here is'), call('lookup_order', 'l2'), say('here is'), call('lookup_order', 'l3')]) await monitor.afterModel('s1', turn);
    const next = await monitor.beforeModel('s1', request());
    expect(next.action === 'proceed' && next.messages).toEqual([
      ...request().messages,
      { role: 'user', content: "[Ops] Stop looking: Entered 'lookup' more than 2 times (the last at trace position 6)." },
    ]);
  });

  it('fills its schema defaults', () => {
    const workflow = parseWorkflow(withStrategy('  stop_looking: { template: "Stop", strategy: developer_note }'), { registry });
    expect(workflow.intervention('stop_looking')!.options).toEqual({ label: 'Policy' });
  });

  it('rejects an unknown strategy and bad options with file, line, field and fix', () => {
    const errors = (intervention: string) => validateWorkflow(withStrategy(intervention), { source: 'lookups.yaml', registry }).diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    expect(errors('  stop_looking: { template: "Stop", strategy: developer_nte }')).toEqual([
      expect.objectContaining({ code: 'unknown-strategy', source: 'lookups.yaml', line: 17, path: 'interventions.stop_looking.strategy', message: "unknown intervention strategy 'developer_nte'", hint: expect.stringContaining("did you mean 'developer_note'?") }),
    ]);
    expect(errors('  stop_looking: { template: "Stop", strategy: developer_note, options: { label: 3 } }')).toEqual([
      expect.objectContaining({ code: 'invalid-options', line: 17, path: 'interventions.stop_looking.options.label', message: "strategy 'developer_note': `label`: Invalid input: expected string, received number", hint: "strategy 'developer_note' rejects these options; it takes: label" }),
    ]);
    expect(errors('  stop_looking: { template: "Stop", strategy: system-prompt-append, options: { label: Ops } }')).toEqual([
      expect.objectContaining({ code: 'unexpected-options', path: 'interventions.stop_looking.options', message: "strategy 'system-prompt-append' takes no options" }),
    ]);
  });

  it('fails open when it throws: the call goes on without it, counted and logged once', async () => {
    const broken = defineInterventionStrategy({ name: 'developer_note', apply: () => { throw new Error('renderer down'); } });
    const workflow = parseWorkflow(withStrategy('  stop_looking: { template: "Stop", strategy: developer_note }'), { registry: createRegistry().register(maxCount, broken) });
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow, logger });
    for (const session of ['a', 'b']) {
      for (const turn of [call('lookup_order', 'l1'), say('here is'), call('lookup_order', 'l2'), say('here is'), call('lookup_order', 'l3')]) await monitor.afterModel(session, turn);
      const input = request();
      const next = await monitor.beforeModel(session, input);
      expect(next.action === 'proceed' && next.messages).toEqual(input.messages);
    }
    expect(monitor.misses()).toMatchObject({ strategy: 2 });
    expect(logger.warnings.filter((warning) => warning.includes('renderer down'))).toEqual([
      "[panoptes] Intervention strategy 'developer_note' failed (renderer down); the call went on without its interventions. The call goes on unchanged; later strategy failures are counted, not logged.",
    ]);
  });

  it('escalates like the gentlest built-in when applied past max_applications, leaving its options behind', () => {
    expect([0, 1, 2, 3, 9].map((steps) => escalate('developer_note', steps))).toEqual(['developer_note', 'context-reminder', 'user-message-inject', 'hard-block', 'hard-block']);
    const definition = { name: 'stop', template: 'Stop', strategy: 'developer_note', maxApplications: 1, options: { label: 'Ops' } };
    const pending = { name: 'stop', reason: 'violation' as const, block: false, variables: {} };
    const first = planInterventions(scheduleIntervention(initialInterventionState(), pending), () => definition);
    expect(first.apply).toEqual([{ name: 'stop', strategy: 'developer_note', text: 'Stop', options: { label: 'Ops' } }]);
    expect(planInterventions(scheduleIntervention(first.state, pending), () => definition).apply).toEqual([{ name: 'stop', strategy: 'context-reminder', text: 'Stop' }]);
  });
});

describe('a classification tier of our own', () => {
  const workflow = parseWorkflow(LOOKUP_WORKFLOW, { registry: createRegistry().register(maxCount) });
  const orderTalk = defineClassificationTier({ name: 'order-talk', classify: ({ text }) => (/\border\b/i.test(text) ? { state: 'lookup', confidence: 0.6 } : undefined) });

  it('classifies what the tool calls and patterns leave undecided', async () => {
    const monitor = createMonitor({ workflow, tiers: [orderTalk], logger: recordingLogger() });
    const after = await monitor.afterModel('s1', say('Let me check your order.'));
    expect(after.classifications).toEqual([{ state: 'lookup', method: 'tier', confidence: 0.6, evidence: { kind: 'tier', tier: 'order-talk' } }]);
    expect((await monitor.afterModel('s1', say('here is the status'))).classifications[0]).toMatchObject({ state: 'answer', method: 'pattern' });
  });

  it('is asked from the registry too, before the monitor option', async () => {
    const never = defineClassificationTier({ name: 'never', classify: () => null });
    const registry = createRegistry().register(maxCount, orderTalk);
    const monitor = createMonitor({ workflow, registry, tiers: [never], logger: recordingLogger() });
    expect((await monitor.afterModel('s1', say('your order'))).classifications[0]).toMatchObject({ method: 'tier', evidence: { tier: 'order-talk' } });
  });

  it('is bounded in time: a tier that hangs falls back after its budget, counted and logged once', async () => {
    const hangs = defineClassificationTier({ name: 'hangs', timeoutMs: 50, classify: () => new Promise(() => {}) });
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow, tiers: [hangs, orderTalk], logger });
    const started = performance.now();
    expect((await monitor.afterModel('s1', say('your order'))).classifications[0]).toMatchObject({ state: 'lookup', method: 'tier', evidence: { tier: 'order-talk' } });
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await monitor.afterModel('s2', say('nothing to see'))).classifications[0]).toMatchObject({ method: 'fallback' });
    expect(monitor.misses()).toMatchObject({ tier: 2 });
    expect(logger.warnings.filter((warning) => warning.includes("'hangs'"))).toEqual([
      "[panoptes] Classification tier 'hangs' failed (classification tier 'hangs' gave no answer within 50 ms); the turn went on down the cascade. The call goes on unchanged; later tier failures are counted, not logged.",
    ]);
  });

  it('fails open when it throws, rejects or names no state', async () => {
    const throws = defineClassificationTier({ name: 'throws', classify: () => { throw new Error('model offline'); } });
    const rejects = defineClassificationTier({ name: 'rejects', classify: () => Promise.reject(new Error('quota')) });
    const invents = defineClassificationTier({ name: 'invents', classify: () => ({ state: 'refund', confidence: 0.9 }) });
    const overconfident = defineClassificationTier({ name: 'overconfident', classify: () => ({ state: 'answer', confidence: 7 }) });
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow, tiers: [throws, rejects, invents, overconfident], logger });
    expect((await monitor.afterModel('s1', say('something'))).classifications[0]).toMatchObject({ method: 'fallback', state: 'greeting' });
    expect(monitor.misses()).toMatchObject({ tier: 4 });
    expect(logger.warnings).toEqual([expect.stringContaining("Classification tier 'throws' failed (model offline)")]);
    const reasons: unknown[] = [];
    const probe = createMonitor({ workflow, tiers: [invents, overconfident], logger: { warn: (_message: string, error: unknown) => reasons.push((error as Error).message) } });
    await probe.afterModel('s1', say('something'));
    await probe.afterModel('s2', say('something'));
    expect(reasons).toEqual(["the answer names 'refund', which is not a state of the workflow"]);
  });

  it('refuses a malformed tier', () => {
    expect(() => defineClassificationTier({ name: '', classify: () => undefined })).toThrow(/Give the tier a name/);
    expect(() => defineClassificationTier({ name: 'x', timeoutMs: 0, classify: () => undefined })).toThrow(/positive number of milliseconds/);
  });
});
