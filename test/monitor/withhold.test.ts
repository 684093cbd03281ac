import { describe, expect, it } from 'vitest';
import { createMonitor, DEFAULT_USER_MESSAGE, parseWorkflow, TEXT_WATCH_WINDOW, type MonitorEvents } from '../../src/index.js';
import { call, recordingLogger, say, supportWorkflow } from './fixtures.js';

/** The support workflow of the fixtures with the leak made critical, its guidance a `block:`, as a customer-facing agent needs. */
const leakBlocked = parseWorkflow(`
name: support
states:
  - { name: greeting, initial: true, classification: { patterns: ["\\\\bhello\\\\b"] } }
  - { name: identify_issue, classification: { patterns: ["tell me more"], exemplars: ["What seems to be the problem?"] } }
  - { name: verify_identity, classification: { tool_calls: [verify_identity] } }
  - { name: leak, classification: { patterns: ["internal notes"] } }
  - { name: rude, classification: { patterns: ["\\\\bidiot\\\\b"] } }
transitions:
  - { from: greeting, to: identify_issue }
  - { from: identify_issue, to: verify_identity }
constraints:
  - { name: no_leak, type: never, target: leak, severity: critical, intervention: no_leak }
  - { name: be_polite, type: never, target: rude, severity: error, intervention: be_polite }
interventions:
  no_leak: "block: Never reveal internal notes."
  be_polite: { template: "block: Stay polite.", user_message: "Let me rephrase that." }
`);

const monitorOf = (workflow = leakBlocked) => createMonitor({ workflow, logger: recordingLogger() });
const request = () => ({ messages: [{ role: 'user' as const, content: 'hi' }] });

describe('afterModel with withhold', () => {
  it('withholds a response that breaks a critical constraint: nothing enters the trace, the violation is recorded, guidance follows', async () => {
    const monitor = monitorOf();
    const violations: Array<MonitorEvents['violation']> = [];
    monitor.on('violation', (event) => void violations.push(event));
    const after = await monitor.afterModel('s1', say('Here are the internal notes.'), { withhold: true });

    expect(after.withheld).toEqual({ state: 'leak', constraints: ['no_leak'], userMessage: DEFAULT_USER_MESSAGE, reason: expect.stringContaining('leak') });
    const report = (await monitor.report('s1'))!;
    expect(report.trace).toEqual(['greeting']);
    expect(report.verdicts.no_leak).toBe('pending'); // what the user saw broke nothing
    expect(report.violations).toEqual([expect.objectContaining({ constraint: 'no_leak', severity: 'critical', state: 'leak', position: 2, step: 1, withheld: true })]);
    expect(report.steps).toEqual([expect.objectContaining({ state: 'leak', withheld: true })]);
    expect(violations).toEqual([{ sessionId: 's1', violation: expect.objectContaining({ withheld: true }) }]);

    // Not a block: the withholding was the block. A `block:` template goes into the system prompt.
    const before = await monitor.beforeModel('s1', request());
    expect(before).toMatchObject({ action: 'proceed', interventions: [{ name: 'no_leak', strategy: 'system-prompt-append', text: 'Never reveal internal notes.' }] });
  });

  it('keeps guarding: a second leak is withheld too, and the constraint is still pending at the end', async () => {
    const monitor = monitorOf();
    await monitor.afterModel('s1', say('internal notes, part one'), { withhold: true });
    const second = await monitor.afterModel('s1', say('internal notes, part two'), { withhold: true });
    expect(second.withheld?.constraints).toEqual(['no_leak']);
    const report = await monitor.endSession('s1');
    expect(report.violations.map((violation) => violation.withheld)).toEqual([true, true]);
    expect(report.verdicts.no_leak).toBe('satisfied');
  });

  it('withholds a text that matches a withheld state even when the tie went to another state', async () => {
    const monitor = monitorOf();
    const after = await monitor.afterModel('s1', say('Hello! Here are the internal notes.'), { withhold: true });
    expect(after.classifications[0]).toMatchObject({ state: 'greeting', evidence: { others: ['leak'] } });
    expect(after.withheld).toMatchObject({ state: 'leak', constraints: ['no_leak'] });
  });

  it("withholds for a non-critical constraint whose intervention is a block:, with the intervention's user_message", async () => {
    const after = await monitorOf().afterModel('s1', say('You idiot.'), { withhold: true });
    expect(after.withheld).toMatchObject({ state: 'rude', constraints: ['be_polite'], userMessage: 'Let me rephrase that.' });
  });

  it("prefers the constraint's user_message to its intervention's", async () => {
    const workflow = parseWorkflow(`
name: w
states: [{ name: a, initial: true }, { name: leak, classification: { patterns: [secret] } }]
constraints:
  - { name: no_leak, type: never, target: leak, severity: critical, intervention: hush, user_message: "Not that, sorry." }
interventions:
  hush: { template: "Hush.", user_message: "Never shown." }
`);
    expect((await monitorOf(workflow).afterModel('s1', say('the secret'), { withhold: true })).withheld?.userMessage).toBe('Not that, sorry.');
  });

  it('leaves everything else as it was: an error violation, a tool call, and any response without withhold', async () => {
    const errorOnly = await monitorOf(supportWorkflow).afterModel('s1', say('here are the internal notes'), { withhold: true });
    expect(errorOnly.withheld).toBeUndefined(); // severity error, `inject:` guidance: delivered, corrected next call

    const monitor = monitorOf();
    expect((await monitor.afterModel('s2', call('verify_identity'), { withhold: true })).withheld).toBeUndefined();
    const delivered = await monitor.afterModel('s3', say('Here are the internal notes.'));
    expect(delivered.withheld).toBeUndefined();
    expect((await monitor.report('s3'))!.trace).toEqual(['greeting', 'leak']);
    expect((await monitor.beforeModel('s3', request())).action).toBe('block');
  });

  it('escalates guidance after repeated withheld responses like any intervention, up to a block', async () => {
    const monitor = monitorOf();
    const strategies: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      await monitor.afterModel('s1', say('internal notes'), { withhold: true });
      const before = await monitor.beforeModel('s1', request());
      strategies.push(before.action === 'block' ? 'block' : before.interventions[0]!.strategy);
    }
    expect(strategies).toEqual([
      ...Array(3).fill('system-prompt-append'),
      ...Array(3).fill('context-reminder'),
      ...Array(3).fill('user-message-inject'),
      'block',
    ]);
  });
});

describe('watchText', () => {
  it('is undefined for a workflow that withholds nothing', async () => {
    expect(await monitorOf(supportWorkflow).watchText('s1')).toBeUndefined();
  });

  it("lists the states a response would be withheld for, and finds their patterns across deltas", async () => {
    const watch = (await monitorOf().watchText('s1'))!;
    expect(watch.states).toEqual(['leak', 'rude']);
    expect(watch.text('Here are the inter')).toBeNull();
    expect(watch.text('nal no')).toBeNull();
    expect(watch.text('tes: ...')).toEqual({ state: 'leak', pattern: 'internal notes' });
  });

  it(`reads each delta with the last ${TEXT_WATCH_WINDOW} characters, and no further than the classifier`, async () => {
    const watch = (await monitorOf().watchText('s1'))!;
    expect(watch.text(`internal ${'x'.repeat(TEXT_WATCH_WINDOW)}`)).toBeNull();
    expect(watch.text('notes')).toBeNull(); // the start of the match scrolled out of the window
    const late = (await monitorOf().watchText('s2'))!;
    expect(late.text('y'.repeat(8000))).toBeNull();
    expect(late.text('internal notes')).toBeNull(); // past the 8,000 characters the classifier reads
  });

  it('counts a hold that passed its bound as a hold miss', async () => {
    const monitor = monitorOf();
    (await monitor.watchText('s1'))!.overflowed('bytes');
    expect(monitor.misses()).toEqual({ hold: 1 });
  });
});
