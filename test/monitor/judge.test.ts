/**
 * Rubrics on states: a monitor with a `judge` judges a text response with the `turn` rubrics whose
 * `applies_to.states` names the state it was classified in, beside `afterModel`; a finding is a note on the next
 * call and a `judgment` event. A hanging, failing and over-budget judge follow on_error, counted.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createJudge, createMonitor, parseRubrics, parseWorkflow, recordedJudge, emptyCassette, scriptedJudge, type JudgeOptions, type MonitorEvents } from '../../src/index.js';

const workflow = parseWorkflow(readFileSync(fileURLToPath(new URL('../../examples/workflows/customer-support.yaml', import.meta.url)), 'utf8'), { source: 'customer-support.yaml' });
const rubrics = (onError = 'allow') =>
  parseRubrics(`
rubrics:
  - id: no_refund_promise
    description: While the issue is being identified, the agent must not promise a refund amount.
    scope: turn
    applies_to: { states: [identify_issue] }
    criteria: [{ id: no_amount, description: no refund amount is promised }]
    pass_at: 1
    on_fail: intervene
    on_error: ${onError}
  - id: everywhere
    description: A turn rubric without states is the hosts' to judge.
    scope: turn
    criteria: [{ id: any, description: anything }]
    pass_at: 1
    on_fail: block
    on_error: deny
`);
const verdicts = scriptedJudge(({ rubric, judged }) => {
  const bad = /\$\d/.test(judged.split('## The response')[1] ?? '');
  return { criteria: [{ id: rubric.criteria[0]!.id, score: bad ? 0 : 1, reasoning: bad ? 'an amount is promised' : 'none', evidence: [] }], confidence: 0.9 };
});
const quiet = () => {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
};
const PROMISE = 'Could you tell me more? You will get $120 back anyway.';
const SAFE = 'Could you tell me more about the problem with your order?';

function monitorWith(judgeOptions: Partial<JudgeOptions> = {}, onError = 'allow') {
  const logger = quiet();
  const judge = createJudge({ model: verdicts, rubrics: rubrics(onError), logger, ...judgeOptions });
  const monitor = createMonitor({ workflow, judge, logger });
  const judgments: Array<MonitorEvents['judgment']> = [];
  monitor.on('judgment', (event) => void judgments.push(event));
  return { monitor, judge, logger, judgments };
}
const nextEvent = (monitor: ReturnType<typeof createMonitor>) => new Promise<MonitorEvents['judgment']>((resolve) => monitor.on('judgment', resolve));
const messages = [{ role: 'user' as const, content: 'My order arrived broken.' }];

describe('createMonitor({ judge }): rubrics on states', () => {
  it("judges a response classified in the rubric's state; a fail is a judgment event and a note on the next call", async () => {
    const { monitor, judge } = monitorWith();
    const event = nextEvent(monitor);
    await monitor.afterModel('s1', { content: 'Hello! How can I help?', toolCalls: [] });
    const result = await monitor.afterModel('s1', { content: PROMISE, toolCalls: [] }, { messages: () => messages });
    expect(result.classifications[0]!.state).toBe('identify_issue');
    const judged = await event;
    expect(judged).toMatchObject({ scope: 'turn', sessionId: 's1', state: 'identify_issue', outcome: { decision: 'deny' } });
    expect(judge.stats().judgments).toBe(1); // only the stated rubric, only in its state: not the greeting, not 'everywhere'
    await monitor.close(); // waits for the note
  });

  it('the note reaches the next model call', async () => {
    const { monitor } = monitorWith();
    const event = nextEvent(monitor);
    await monitor.afterModel('s1', { content: 'Hello! How can I help?', toolCalls: [] });
    await monitor.afterModel('s1', { content: PROMISE, toolCalls: [] });
    await event;
    const before = await monitor.beforeModel('s1', { messages: [{ role: 'system', content: 'You help.' }, ...messages] });
    if (before.action !== 'proceed') throw new Error('blocked');
    expect(before.messages[0]!.content).toContain("[POLICY CHECK] Your last answer (in state 'identify_issue') did not pass a policy check. A policy check did not pass: While the issue is being identified, the agent must not promise a refund amount. an amount is promised");
  });

  it('a passing response raises nothing; the judged material has the user message the host passed', async () => {
    const seen: string[] = [];
    const { monitor, judge, judgments } = monitorWith({ model: scriptedJudge((request) => (seen.push(request.judged), verdicts(request))) });
    await monitor.afterModel('s1', { content: 'Hello!', toolCalls: [] });
    await monitor.afterModel('s1', { content: SAFE, toolCalls: [] }, { messages: () => messages });
    await monitor.close();
    expect(judge.stats().judgments).toBe(1);
    expect(judgments).toEqual([]);
    expect(seen[0]).toContain('My order arrived broken.');
  });

  it('a withheld response is not judged', async () => {
    const strict = parseWorkflow(readFileSync(fileURLToPath(new URL('../../examples/workflows/customer-support.yaml', import.meta.url)), 'utf8').replace('    severity: error\n    intervention: keep_internal', '    severity: critical\n    intervention: keep_internal'));
    const judge = createJudge({ model: verdicts, rubrics: parseRubrics(`
rubrics:
  - id: leak
    description: no leak
    scope: turn
    applies_to: { states: [share_internal_info] }
    criteria: [{ id: c, description: c }]
    pass_at: 1
    on_fail: block
    on_error: deny
`), logger: quiet() });
    const monitor = createMonitor({ workflow: strict, judge, logger: quiet() });
    const result = await monitor.afterModel('s1', { content: 'The internal notes say no.', toolCalls: [] }, { withhold: true });
    expect(result.withheld).toBeDefined();
    await monitor.close();
    expect(judge.stats().judgments).toBe(0);
  });

  it('replays a recorded verdict (strict cassette) and reports a miss as an error under on_error', async () => {
    const cassette = emptyCassette('recorded');
    const recording = monitorWith({ model: recordedJudge(cassette, { strict: false, fallback: verdicts }) }, 'deny');
    await recording.monitor.afterModel('s1', { content: PROMISE, toolCalls: [] });
    await recording.monitor.close();
    expect(Object.keys(cassette.entries)).toHaveLength(1);

    const replay = monitorWith({ model: recordedJudge(cassette) }, 'deny');
    const event = nextEvent(replay.monitor);
    await replay.monitor.afterModel('s1', { content: PROMISE, toolCalls: [] });
    expect((await event).outcome.judgments[0]).toMatchObject({ outcome: 'fail', cached: false });
    const missed = nextEvent(replay.monitor);
    await replay.monitor.afterModel('s2', { content: `${PROMISE} Really.`, toolCalls: [] });
    expect((await missed).outcome.judgments[0]).toMatchObject({ outcome: 'error', action: 'deny', error: { kind: 'model' } });
    await replay.monitor.close();
  });
});

describe('createMonitor({ judge }): a judge that cannot answer', () => {
  it('hanging: afterModel does not wait; past timeoutMs on_error deny notes the next call; one timeout counted', async () => {
    const hanging = Object.assign(() => new Promise<never>(() => undefined), { modelId: 'hangs' });
    const { monitor, judge } = monitorWith({ model: hanging, timeoutMs: 50 }, 'deny');
    const event = nextEvent(monitor);
    const started = performance.now();
    await monitor.afterModel('s1', { content: SAFE, toolCalls: [] });
    expect(performance.now() - started).toBeLessThan(50); // not held by the judge
    expect((await event).outcome).toMatchObject({ decision: 'deny' });
    await monitor.close();
    expect(judge.stats().errors.timeout).toBe(1);
  });

  it('failing: on_error allow raises a judgment event (an error) but no note; one model error counted, logged once', async () => {
    const failing = Object.assign(async () => Promise.reject(new Error('provider down')), { modelId: 'fails' });
    const { monitor, judge, logger } = monitorWith({ model: failing });
    const events: Array<MonitorEvents['judgment']> = [];
    monitor.on('judgment', (event) => void events.push(event));
    await monitor.afterModel('s1', { content: SAFE, toolCalls: [] });
    await monitor.afterModel('s2', { content: SAFE, toolCalls: [] });
    await monitor.close();
    expect(judge.stats().errors.model).toBe(2);
    expect(events.map((event) => event.outcome.decision)).toEqual(['allow', 'allow']);
    expect(logger.warnings.filter((warning) => warning.includes('provider down'))).toHaveLength(1);
  });

  it('over budget: a second judgment past the session budget is an error with on_error deny; one budget error counted', async () => {
    const { monitor, judge } = monitorWith({ budget: { session: { calls: 1 } }, cache: false }, 'deny');
    const events: Array<MonitorEvents['judgment']> = [];
    monitor.on('judgment', (event) => void events.push(event));
    await monitor.afterModel('s1', { content: SAFE, toolCalls: [] });
    await monitor.afterModel('s1', { content: `${SAFE} Please.`, toolCalls: [] });
    await monitor.close();
    expect(judge.stats()).toMatchObject({ calls: 1, errors: expect.objectContaining({ budget: 1 }) });
    expect(events.map((event) => event.outcome.judgments[0]!.error?.kind)).toEqual(['budget']);
  });

  it('a messages getter that throws is a counted judge miss, not a failed call', async () => {
    const { monitor } = monitorWith();
    await monitor.afterModel('s1', { content: SAFE, toolCalls: [] }, { messages: () => { throw new Error('bad thread'); } });
    await monitor.close();
    expect(monitor.misses().judge).toBe(1);
  });
});
