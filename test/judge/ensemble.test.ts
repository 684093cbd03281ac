import { describe, expect, it, vi } from 'vitest';
import { ATTR, calibrateJudge, combineVerdicts, createJudge, emptyCassette, parseRubrics, recordedJudge, scriptedJudge, SPAN, withUsage, type JudgeModelRequest } from '../../src/index.js';
import { createOtel } from '../telemetry/harness.js';

const rubrics = parseRubrics(`
rubrics:
  - id: mail
    description: The e-mail is one the user asked for.
    scope: tool_call
    criteria:
      - { id: requested, description: the user asked for it }
      - { id: tone, description: polite, scale: likert_5 }
    pass_at: 0.75
    on_fail: block
    on_error: deny
`);
const input = { messages: [{ role: 'user' as const, content: 'Mail the notes to bob@example.com' }], call: { name: 'send_email', args: { to: 'bob@example.com' } } };
const answer = (requested: number, tone: number, confidence = 0.8, evidence: string[] = []) => ({
  criteria: [
    { id: 'requested', score: requested, reasoning: `requested ${requested}`, evidence },
    { id: 'tone', score: tone, reasoning: `tone ${tone}`, evidence: [] },
  ],
  confidence,
});
const member = (id: string, reply: (request: JudgeModelRequest) => unknown) => scriptedJudge(reply, { modelId: id });
const quiet = { warn: vi.fn() };

describe('ensembles: createJudge({ models, ensemble })', () => {
  it('majority: the vote decides, scores are the mean, confidence is agreement times the agreeing members\' confidence', async () => {
    const judge = createJudge({
      models: [member('a', () => answer(1, 5, 0.9)), member('b', () => answer(1, 3, 0.7)), member('c', () => answer(0, 5, 0.6))],
      rubrics,
      logger: quiet,
    });
    expect(judge.modelId).toBe('majority(a,b,c)');
    const judgment = await judge.judge('mail', input);
    // a: (1 + 1) / 2 = 1 pass; b: (1 + 0.5) / 2 = 0.75 pass; c: (0 + 1) / 2 = 0.5 fail.
    expect(judgment).toMatchObject({ outcome: 'pass', action: 'allow', cached: false });
    expect(judgment.verdict!.score).toBeCloseTo((1 + 0.75 + 0.5) / 3);
    expect(judgment.verdict!.criteria.map((criterion) => [criterion.id, criterion.score])).toEqual([
      ['requested', 2 / 3],
      ['tone', 13 / 3],
    ]);
    expect(judgment.verdict!.criteria[0]!.reasoning).toBe('a: requested 1 | b: requested 1 | c: requested 0');
    expect(judgment.verdict!.confidence).toBeCloseTo((2 / 3) * 0.8);
    expect(judgment.ensemble).toMatchObject({ mode: 'majority', agreement: 2 / 3, members: [{ modelId: 'a', outcome: 'pass' }, { modelId: 'b', outcome: 'pass', score: 0.75 }, { modelId: 'c', outcome: 'fail', score: 0.5 }] });
    // The cache key names every member; each member was asked under its own key.
    expect(judgment.key).toMatch(/^mail@\w+\|majority\(a,b,c\)\|[0-9a-f]{32}$/);
    expect(judgment.ensemble!.members.map((entry) => entry.key.split('|')[1])).toEqual(['a', 'b', 'c']);
    expect(await judge.judge('mail', input)).toMatchObject({ cached: true, outcome: 'pass' });
    expect(judge.stats()).toMatchObject({ judgments: 2, calls: 3, cacheHits: 1 });
  });

  it('all, any and mean combine the same three verdicts differently', async () => {
    const models = () => [member('a', () => answer(1, 5)), member('b', () => answer(1, 3)), member('c', () => answer(0, 5))];
    const outcome = async (ensemble: 'all' | 'any' | 'mean') => (await createJudge({ models: models(), ensemble, rubrics, logger: quiet }).judge('mail', input));
    const all = await outcome('all');
    expect(all).toMatchObject({ outcome: 'fail', action: 'block', verdict: { score: 0.5 }, ensemble: { mode: 'all', agreement: 1 / 3 } });
    expect(all.verdict!.criteria.map((criterion) => criterion.score)).toEqual([0, 3]);
    const any = await outcome('any');
    expect(any).toMatchObject({ outcome: 'pass', verdict: { score: 1 }, ensemble: { agreement: 2 / 3 } });
    const mean = await outcome('mean');
    // The mean of 1, 0.75 and 0.5 is 0.75: at pass_at, it passes.
    expect(mean).toMatchObject({ outcome: 'pass', verdict: { score: 0.75 }, ensemble: { mode: 'mean', agreement: 2 / 3 } });
  });

  it('a failing, a hanging and an over-budget member are counted and left out of the vote; below the quorum it is on_error', async () => {
    const logger = { warn: vi.fn() };
    const judge = createJudge({
      models: [member('good', () => answer(1, 5)), member('broken', () => { throw new Error('rate limited'); }), member('slow', () => new Promise(() => undefined))],
      rubrics,
      timeoutMs: 30,
      quorum: 1,
      logger,
    });
    const started = performance.now();
    const judgment = await judge.judge('mail', input);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(judgment).toMatchObject({ outcome: 'pass', ensemble: { agreement: 1 } });
    expect(judgment.ensemble!.members).toMatchObject([
      { modelId: 'good', outcome: 'pass' },
      { modelId: 'broken', outcome: 'error', error: { kind: 'model', message: "the judge's model failed: rate limited" } },
      { modelId: 'slow', outcome: 'error', error: { kind: 'timeout', message: 'no verdict within 30 ms' } },
    ]);
    expect(judge.stats().memberErrors).toMatchObject({ model: 1, timeout: 1 });
    expect(judge.stats().errors).toMatchObject({ model: 0, timeout: 0 });
    expect(logger.warn.mock.calls.map(([line]) => line)).toEqual([
      expect.stringContaining("ensemble member 'broken' gave no verdict (model: the judge's model failed: rate limited); it is left out of the vote"),
      expect.stringContaining("ensemble member 'slow' gave no verdict (timeout"),
    ]);

    // The default quorum is more than half: one verdict of three is an error, resolved by on_error (deny).
    const strict = createJudge({ models: [member('good', () => answer(1, 5)), member('broken', () => { throw new Error('down'); }), member('bad', () => ({ nonsense: true }))], rubrics, logger: quiet });
    expect(await strict.judge('mail', input)).toMatchObject({ outcome: 'error', action: 'deny', error: { kind: 'model', message: '1 of 3 ensemble members gave a verdict; the quorum is 2' } });
    expect(strict.stats().errors.model).toBe(1);
    expect(strict.stats().memberErrors).toMatchObject({ model: 1, invalid: 1 });

    // Each member is a call of the budget: two calls per session leave the third member without a verdict.
    const budgeted = createJudge({ models: [member('a', () => answer(1, 5)), member('b', () => answer(1, 5)), member('c', () => answer(1, 5))], rubrics, budget: { session: { calls: 2 } }, logger: quiet });
    const judged = await budgeted.judge('mail', { ...input, sessionId: 's' });
    expect(judged.outcome).toBe('pass');
    expect(judged.ensemble!.members.filter((entry) => entry.error?.kind === 'budget')).toHaveLength(1);
    expect(budgeted.stats()).toMatchObject({ calls: 2, memberErrors: { budget: 1 } });
  });

  it('an ungrounded member is an error of that member only', async () => {
    const judge = createJudge({ models: [member('a', () => answer(1, 5, 0.9, ['bob@example.com'])), member('b', () => answer(1, 5, 0.9, ['eve@evil.test'])), member('c', () => answer(1, 5))], rubrics, logger: quiet });
    const judgment = await judge.judge('mail', input);
    expect(judgment.outcome).toBe('pass');
    expect(judgment.verdict!.criteria[0]!.evidence).toEqual(['bob@example.com']);
    expect(judgment.ensemble!.members[1]).toMatchObject({ outcome: 'error', error: { kind: 'ungrounded' } });
  });

  it('each member replays its own cassette, recorded under its own model id', async () => {
    const cassettes = ['gpt', 'claude'].map((id) => emptyCassette(id));
    const recorders = cassettes.map((cassette) => recordedJudge(cassette, { strict: false, fallback: member(cassette.modelId, () => answer(1, 5)) }));
    await createJudge({ models: recorders, rubrics, quorum: 2, logger: quiet }).judge('mail', input);
    expect(cassettes.map((cassette) => Object.keys(cassette.entries)[0]!.split('|')[1])).toEqual(['gpt', 'claude']);
    const replay = createJudge({ models: cassettes.map((cassette) => recordedJudge(cassette)), rubrics, logger: quiet });
    expect(await replay.judge('mail', input)).toMatchObject({ outcome: 'pass', ensemble: { agreement: 1 } });
  });

  it('refuses bad options at construction', () => {
    const a = member('a', () => answer(1, 5));
    expect(() => createJudge({ models: [a, member('a', () => answer(1, 5))], rubrics })).toThrow(/models\[1\].*Give each member its own modelId/s);
    expect(() => createJudge({ model: a, models: [a], rubrics })).toThrow(/Pass either one model \(`model`\) or an ensemble \(`models`\), not both/);
    expect(() => createJudge({ models: [], rubrics })).toThrow(/Pass a non-empty list of judge models/);
    expect(() => createJudge({ models: [a], ensemble: 'vote' as never, rubrics })).toThrow(/Pass one of majority, all, any, mean/);
    expect(() => createJudge({ models: [a], quorum: 2, rubrics })).toThrow(/quorum.*from 1 to the number of members \(1\)/s);
  });

  it('combineVerdicts is pure: a tie of a majority fails (guards fail closed)', () => {
    const rubric = rubrics[0]!;
    const pass = { verdict: 'pass' as const, score: 1, criteria: [{ id: 'requested', score: 1, reasoning: '', evidence: [] }, { id: 'tone', score: 5, reasoning: '', evidence: [] }], confidence: 1, failedCriteria: [] };
    const fail = { ...pass, verdict: 'fail' as const, score: 0.5, criteria: [{ id: 'requested', score: 0, reasoning: '', evidence: [] }, pass.criteria[1]!] };
    expect(combineVerdicts(rubric, 'majority', [{ modelId: 'a', verdict: pass }, { modelId: 'b', verdict: fail }])).toMatchObject({ verdict: 'fail', agreement: 0.5, confidence: 0.5 });
  });
});

describe('cost in US dollars', () => {
  const prices = { 'openai:gpt-4o-mini': { input: 0.15, output: 0.6 }, 'claude-3-5-haiku': { input: 0.8, output: 4 } };
  const usage = { inputTokens: 1000, outputTokens: 200 };

  it('judgments, stats, spans and the cost counter carry the cost; an unpriced model has none', async () => {
    const otel = createOtel();
    const judge = createJudge({ model: member('openai:gpt-4o-mini', () => withUsage(answer(1, 5), usage)), rubrics, prices, tracer: otel.tracer, meter: otel.meter, logger: quiet });
    const judgment = await judge.judge('mail', input);
    const cost = (1000 * 0.15 + 200 * 0.6) / 1_000_000;
    expect(judgment.costUsd).toBeCloseTo(cost, 12);
    expect(judge.stats().costUsd).toBeCloseTo(cost, 12);
    const span = otel.span(`${SPAN.judge} mail`);
    expect(span.attributes[ATTR.judgeCostUsd]).toBeCloseTo(cost, 12);
    expect(span.attributes).toMatchObject({ [ATTR.inputTokens]: 1000, [ATTR.outputTokens]: 200 });
    expect(await otel.points('panoptes.judge.cost')).toEqual([{ attributes: { [ATTR.judgeRubric]: 'mail', [ATTR.requestModel]: 'openai:gpt-4o-mini' }, value: expect.closeTo(cost, 12) }]);
    // A cache hit costs nothing.
    expect((await judge.judge('mail', input)).costUsd).toBeUndefined();

    const unpriced = createJudge({ model: member('mistral:small', () => withUsage(answer(1, 5), usage)), rubrics, prices, logger: quiet });
    expect((await unpriced.judge('mail', input)).costUsd).toBeUndefined();
    expect(unpriced.stats().costUsd).toBe(0);
  });

  it("an ensemble's cost is its members', each at its own price (a provider-prefixed id matches a bare name)", async () => {
    const judge = createJudge({ models: [member('openai:gpt-4o-mini', () => withUsage(answer(1, 5), usage)), member('anthropic:claude-3-5-haiku-latest', () => withUsage(answer(1, 5), usage)), member('unpriced', () => answer(1, 5))], rubrics, prices, logger: quiet });
    const judgment = await judge.judge('mail', input);
    expect(judgment.costUsd).toBeCloseTo((150 + 120 + 800 + 800) / 1_000_000, 12);
    expect(judgment.usage).toEqual({ inputTokens: 2000, outputTokens: 400 });
    expect(judgment.ensemble!.members.map((entry) => entry.costUsd)).toEqual([expect.closeTo(270e-6, 12), expect.closeTo(1600e-6, 12), undefined]);
  });

  it('calibrate reports the cost per run, and counts one model call per ensemble member', async () => {
    const cases = [
      { input, label: false, run: 'r1' },
      { input: { ...input, call: { name: 'send_email', args: { to: 'eve@evil.test' } } }, label: true, run: 'r1' },
      { input: { ...input, call: { name: 'send_email', args: { to: 'x@y.z' } } }, label: true, run: 'r2' },
    ];
    const verdict = (request: JudgeModelRequest) => withUsage(request.judged.includes('{"to":"bob@example.com"}') ? answer(1, 5) : answer(0, 1), usage);
    const single = await calibrateJudge(createJudge({ model: member('openai:gpt-4o-mini', verdict), rubrics, prices, logger: quiet }), cases);
    expect(single).toMatchObject({ modelCalls: 3, runs: 2, callsPerRun: 1.5, tokens: 3600, auroc: 1 });
    expect(single.costUsd).toBeCloseTo(3 * 270e-6, 12);
    expect(single.costPerRun).toBeCloseTo((3 * 270e-6) / 2, 12);
    const ensemble = await calibrateJudge(createJudge({ models: [member('openai:gpt-4o-mini', verdict), member('b', verdict), member('c', verdict)], rubrics, prices, logger: quiet }), cases);
    expect(ensemble).toMatchObject({ modelCalls: 9, callsPerRun: 4.5, tokens: 3 * 3600 });
    expect(ensemble.costUsd).toBeCloseTo(3 * 270e-6, 12); // only one member is priced
    const unpriced = await calibrateJudge(createJudge({ model: member('m', verdict), rubrics, logger: quiet }), cases);
    expect(unpriced.costUsd).toBeUndefined();
  });

  it('a budget caps US dollars per session and per process: the calls after the one that crossed it are refused', async () => {
    let calls = 0;
    const judge = createJudge({ model: member('openai:gpt-4o-mini', () => (calls++, withUsage(answer(1, 5), usage))), rubrics, prices, cache: false, budget: { session: { costUsd: 0.0005 }, process: { costUsd: 0.0007 } }, logger: quiet });
    const mail = (sessionId: string) => judge.judge('mail', { ...input, sessionId });
    expect((await mail('a')).outcome).toBe('pass'); // 0.00027
    expect((await mail('a')).outcome).toBe('pass'); // 0.00054: the session limit is crossed
    expect(await mail('a')).toMatchObject({ outcome: 'error', action: 'deny', error: { kind: 'budget', message: "the judge's budget of session cost (US$0.0005) is spent" } });
    expect((await mail('b')).outcome).toBe('pass'); // 0.00081 in the process
    expect(await mail('c')).toMatchObject({ error: { kind: 'budget', message: "the judge's budget of process cost (US$0.0007) is spent" } });
    expect(calls).toBe(3);
    expect(() => createJudge({ model: member('x', () => answer(1, 5)), rubrics, budget: { session: { costUsd: -1 } } })).toThrow(/budget\.session\.costUsd.*US dollars as a number >= 0/s);
    expect(() => createJudge({ model: member('x', () => answer(1, 5)), rubrics, prices: { x: { input: 1 } as never } })).toThrow(/prices\['x'\].*US dollars per million tokens/s);
  });
});
