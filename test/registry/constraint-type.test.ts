import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_CONSTRAINT_TYPES,
  createMonitor,
  createRegistry,
  defineConstraintType,
  InvalidOptionError,
  parseWorkflow,
  validateWorkflow,
  WorkflowValidationError,
  type ChatMessage,
} from '../../src/index.js';
import { assertConstraintType, checkConstraintType } from '../../src/testing/index.js';
import { call, recordingLogger, say } from '../monitor/fixtures.js';
import { LOOKUP_WORKFLOW, maxCount, setMemoryType, wrongMaxCount } from './fixtures.js';

const request = (): { messages: ChatMessage[] } => ({ messages: [{ role: 'system', content: 'You help with orders.' }, { role: 'user', content: 'Where is my order?' }] });

describe('the property test of a constraint type (panoptes/testing)', () => {
  it('passes an evaluator that agrees with its reference semantics', () => {
    const result = checkConstraintType(maxCount, { options: [{ state: 'lookup', max: 0 }, { state: 'lookup', max: 2 }] });
    expect(result).toEqual({ ok: true, checked: expect.any(Number) });
    expect(result.checked).toBeGreaterThan(5000);
    expect(() => assertConstraintType(maxCount, { options: [{ state: 'lookup', max: 3 }] })).not.toThrow();
  });

  it('fails a deliberately wrong evaluator with a shortest counterexample', () => {
    const result = checkConstraintType(wrongMaxCount, { options: [{ state: 'lookup', max: 2 }] });
    expect(result.ok).toBe(false);
    expect(result.counterexample).toMatchObject({ trace: ['lookup', 'lookup'], closed: false, property: 'agrees-with-reference' });
    expect(() => assertConstraintType(wrongMaxCount, { options: [{ state: 'lookup', max: 2 }] })).toThrow(
      `Constraint type 'max_count' failed its property test: the evaluator says 'violated' where the reference says 'pending', with options {"state":"lookup","max":2}, trace [lookup, lookup] (open)`,
    );
  });

  it('fails memory that does not survive a JSON round trip, as a stored session would not', () => {
    const result = checkConstraintType(setMemoryType, { options: [{ state: 'lookup', max: 1 }] });
    expect(result.counterexample).toMatchObject({ trace: [], property: 'plain-json-memory' });
    expect(result.counterexample!.message).toMatch(/does not survive JSON\.stringify unchanged/);
  });

  it('fails an evaluator that throws', () => {
    const throwing = defineConstraintType({ ...maxCount, evaluate: { start: () => 0, step: () => { throw new Error('boom'); } } });
    expect(checkConstraintType(throwing, { options: [{ state: 'lookup', max: 1 }] }).counterexample).toMatchObject({ trace: ['lookup'], property: 'never-fails', message: expect.stringContaining('the evaluator failed: boom') });
  });

  it('is the test the built-in monitors pass: each built-in, against the oracle', () => {
    const options = {
      eventually: [{ target: 'a' }, { target: ['a', '!b'] }],
      never: [{ target: 'a' }, { target: '!b' }],
      always: [{ condition: ['a', 'b'] }],
      precedence: [{ trigger: 'a', target: 'b' }, { trigger: 'a', target: 'b', each: true }],
      response: [{ trigger: 'a', target: 'b' }, { trigger: 'a', target: ['b', 'a'], each: true }],
      until: [{ trigger: 'a', target: 'b' }],
      next: [{ target: 'b' }, { trigger: 'a', target: 'b' }],
    };
    for (const [name, type] of Object.entries(BUILT_IN_CONSTRAINT_TYPES)) {
      expect([name, checkConstraintType(type, { options: options[name as keyof typeof options], states: ['a', 'b', 'c'], randomTraces: 50 }).counterexample]).toEqual([name, undefined]);
    }
  });

  it('needs a reference semantics and options that fit the schema', () => {
    const { reference: _, ...withoutReference } = maxCount;
    expect(() => checkConstraintType(defineConstraintType(withoutReference), { options: [{ state: 'a', max: 1 }] })).toThrow(/reference\(trace, options, \{ closed \}\)/);
    expect(() => checkConstraintType(maxCount, { options: [{ state: 'a', max: -1 }] })).toThrow(InvalidOptionError);
  });
});

describe('defineConstraintType', () => {
  it('refuses a malformed definition', () => {
    expect(() => defineConstraintType({ ...maxCount, name: 'max count' })).toThrow(/starts with a letter/);
    expect(() => defineConstraintType({ ...maxCount, evaluate: { start: () => 0 } as never })).toThrow(InvalidOptionError);
    expect(() => createRegistry().register(defineConstraintType({ ...maxCount, name: 'never' }))).toThrow(/'never' is a built-in constraint type/);
    expect(() => createRegistry().register(maxCount, defineConstraintType({ ...maxCount }))).toThrow(/A different constraint type named 'max_count' is already registered/);
    expect(() => createRegistry().register(maxCount, maxCount)).not.toThrow();
  });
});

describe('a workflow naming a registered constraint type', () => {
  const registry = createRegistry().register(maxCount);

  it('loads from YAML with the registry, and a monitor enforces it', async () => {
    const workflow = parseWorkflow(LOOKUP_WORKFLOW, { registry });
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    for (const turn of [call('lookup_order', 'l1'), say('here is what I found'), call('lookup_order', 'l2'), say('here is more')]) {
      await monitor.beforeModel('s1', request());
      await monitor.afterModel('s1', turn);
    }
    expect((await monitor.session('s1'))!.workflow.monitors.few_lookups).toMatchObject({ verdict: 'pending', memory: 2 });
    await monitor.afterModel('s1', call('lookup_order', 'l3'));
    const next = await monitor.beforeModel('s1', request());
    expect(next.action === 'proceed' && next.messages[0]!.content).toBe(
      "You help with orders.\n\n[WORKFLOW GUIDANCE]\nStop looking the order up: Entered 'lookup' more than 2 times (the last at trace position 6).",
    );
    const report = await monitor.endSession('s1');
    expect(report.verdicts).toEqual({ few_lookups: 'violated' });
    expect(report.violations).toEqual([expect.objectContaining({ constraint: 'few_lookups', type: 'max_count', position: 6, state: 'lookup' })]);
  });

  it('refuses a tool call before it runs when a critical one would be violated', async () => {
    const workflow = parseWorkflow(LOOKUP_WORKFLOW.replace('    intervention: stop_looking', '    severity: critical'), { registry });
    const monitor = createMonitor({ workflow, logger: recordingLogger() });
    for (const turn of [call('lookup_order', 'l1'), say('here is'), call('lookup_order', 'l2'), say('here is')]) await monitor.afterModel('s1', turn);
    await monitor.afterModel('s1', call('lookup_order', 'l3'));
    const decision = await monitor.beforeTool('s1', { id: 'l3', name: 'lookup_order', args: {} });
    expect(decision).toMatchObject({ action: 'deny', state: 'lookup', constraints: ['few_lookups'] });
    expect(decision.action === 'deny' && decision.reason).toBe(
      'The call to lookup_order was refused and did not run. It would break the rule \'few_lookups\' (max_count {"state":"lookup","max":2}). Allowed next: greeting, answer.',
    );
    expect((await monitor.session('s1'))!.workflow.monitors.few_lookups).toMatchObject({ verdict: 'pending', memory: 2 });
  });

  it('keeps registries apart: without it, the same file names an unknown type', () => {
    const { ok, diagnostics } = validateWorkflow(LOOKUP_WORKFLOW, { source: 'lookups.yaml' });
    expect(ok).toBe(false);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'unknown-constraint-type', message: 'unknown constraint type "max_count"', source: 'lookups.yaml', line: 13, path: 'constraints[0].type', hint: expect.stringContaining('must be registered (defineConstraintType)') }),
    ]);
  });

  it('rejects bad options with file, line, field and fix', () => {
    const bad = (options: string, extra = '') => LOOKUP_WORKFLOW.replace('options: { state: lookup, max: 2 }', `${options}${extra}`);
    const check = (text: string) => validateWorkflow(text, { source: 'lookups.yaml', registry }).diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    expect(check(bad('options: { state: lookup, max: -1 }'))).toEqual([
      expect.objectContaining({ code: 'invalid-options', source: 'lookups.yaml', line: 14, path: 'constraints[0].options.max', message: expect.stringMatching(/^type 'max_count': `max`: Too small: expected number to be >=0/), hint: "type 'max_count' rejects these options; it takes: state, max" }),
    ]);
    expect(check(bad('options: { state: lookup, max: "two" }'))[0]).toMatchObject({ path: 'constraints[0].options.max', line: 14, message: expect.stringContaining('expected number, received string') });
    expect(check(bad('options: { state: lookup, max: 2, maximum: 3 }'))[0]).toMatchObject({ path: 'constraints[0].options', message: expect.stringContaining('Unrecognized key: "maximum"') });
    expect(check(bad('target: lookup'))).toEqual([
      expect.objectContaining({ code: 'missing-options', message: "type 'max_count' needs `options`", line: 12, path: 'constraints[0].options', hint: 'add `options:` with state, max' }),
      expect.objectContaining({ code: 'misplaced-option', path: 'constraints[0].target', line: 14, hint: 'move it under `options:`; it takes: state, max' }),
    ]);
    expect(check(bad('options: { state: lokup, max: 2 }'))).toEqual([
      expect.objectContaining({ code: 'unknown-state', message: "unknown state 'lokup'", line: 14, path: 'constraints[0].options', hint: expect.stringContaining("did you mean 'lookup'?") }),
    ]);
    expect(() => parseWorkflow(bad('options: { state: lookup, max: -1 }'), { source: 'lookups.yaml', registry })).toThrow(WorkflowValidationError);
  });

  it('refuses `options` on a built-in type', () => {
    const text = LOOKUP_WORKFLOW.replace('type: max_count\n    options: { state: lookup, max: 2 }', 'type: never\n    target: lookup\n    options: { max: 2 }');
    expect(validateWorkflow(text, { registry }).diagnostics).toEqual([expect.objectContaining({ code: 'unexpected-options', line: 15, path: 'constraints[0].options' })]);
  });

  it('fails open when its evaluator throws: pending for that session, counted and logged once', async () => {
    const flaky = defineConstraintType({
      ...maxCount,
      evaluate: {
        start: () => 0,
        step: (count: number, entered) => {
          if (entered === 'lookup') throw new Error('counter offline');
          return { verdict: 'pending', memory: count };
        },
      },
    });
    const workflow = parseWorkflow(LOOKUP_WORKFLOW, { registry: createRegistry().register(flaky) });
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow, logger });
    for (const session of ['a', 'b']) {
      await monitor.afterModel(session, call('lookup_order'));
      await monitor.afterModel(session, say('here is'));
      expect((await monitor.beforeModel(session, request())).action).toBe('proceed');
    }
    expect(monitor.misses()).toMatchObject({ constraint: 2 });
    expect(logger.warnings.filter((warning) => warning.includes('counter offline'))).toEqual([
      "[panoptes] Constraint 'few_lookups' failed in session 'a' (counter offline); it stays pending for that session. The call goes on unchanged; later constraint failures are counted, not logged.",
    ]);
    expect((await monitor.endSession('a')).verdicts).toEqual({ few_lookups: 'pending' });
  });

  it('fails open when its start throws: pending for every session, counted and logged once', async () => {
    const broken = defineConstraintType({
      ...maxCount,
      evaluate: {
        start: () => {
          throw new Error('no counter');
        },
        step: (count: number) => ({ verdict: 'pending', memory: count }),
      },
    });
    const workflow = parseWorkflow(LOOKUP_WORKFLOW, { registry: createRegistry().register(broken) });
    const logger = recordingLogger();
    const monitor = createMonitor({ workflow, logger });
    const before = monitor.misses().constraint ?? 0;
    expect(before).toBeGreaterThan(0); // the monitor builds a new session's snapshot once when it is created
    await monitor.afterModel('a', call('lookup_order'));
    expect((await monitor.beforeModel('a', request())).action).toBe('proceed');
    expect(monitor.misses().constraint).toBeGreaterThan(before);
    expect(logger.warnings.filter((warning) => warning.includes('no counter'))).toEqual([
      "[panoptes] Constraint 'few_lookups' failed to start (no counter); it stays pending for every new session. The call goes on unchanged; later constraint failures are counted, not logged.",
    ]);
    expect((await monitor.endSession('a')).verdicts).toEqual({ few_lookups: 'pending' });
  });
});
