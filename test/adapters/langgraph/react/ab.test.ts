import { describe, expect, it } from 'vitest';
import { abVerifier, createVerificationGraph, verifyCases, type AbResult } from '../../../../adapters/langgraph/index.js';
import { policyRetriever } from '../../../../examples/verification/policy-retriever.js';
import { recordingLogger } from '../../langchain/helpers.js';
import { calls, noWait, readingModel, withUsage } from './helpers.js';

const QUOTE = 'has completed at least six weeks of conservative therapy without improvement';
const criteria = [
  { id: 'necessity', text: 'Low back pain for six weeks with six weeks of failed conservative therapy.' },
  { id: 'therapy', text: 'Six weeks of conservative therapy.' },
];
const cases = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `case-${index}`, caseBundle: { id: `case-${index}`, pain_duration_weeks: 10 } }));
const PRICES = { 'gpt-4o-mini': { input: 1, output: 1 } };

/** A verification graph over a model that searches once, then gives `status`; each call uses 1,000 tokens in and 500 out. */
const graph = (status: 'met' | 'not_met' | 'uncertain') =>
  createVerificationGraph({
    model: readingModel((messages) =>
      withUsage(
        messages.some((message) => message.getType() === 'tool')
          ? calls(['finish', { status, confidence: status === 'uncertain' ? 0.3 : 0.9, citations: status === 'uncertain' ? [] : [{ source: 'imaging-policy.md', section: '2.1', quote: QUOTE }], rationale: 'read it' }])
          : calls(['search_policy', { query: 'conservative therapy' }]),
        1000,
        500,
      ),
    ),
    retriever: policyRetriever(),
    prices: PRICES,
    ...noWait,
  });

describe('abVerifier', () => {
  it('sends a deterministic share of cases to the candidate, the same case always to the same arm', () => {
    const verifier = abVerifier(graph('met'), graph('met'), { share: 0.1 });
    const ids = Array.from({ length: 10_000 }, (_, index) => `case-${index}`);
    const toCandidate = ids.filter((id) => verifier.arm(id) === 'candidate');
    expect(toCandidate.length / ids.length).toBeGreaterThan(0.09);
    expect(toCandidate.length / ids.length).toBeLessThan(0.11);
    // sticky: a second verifier (another process, a rerun) splits the same way; a larger share keeps the first one's cases
    const again = abVerifier(graph('met'), graph('met'), { share: 0.1 });
    expect(ids.filter((id) => again.arm(id) === 'candidate')).toEqual(toCandidate);
    const half = abVerifier(graph('met'), graph('met'), { share: 0.5 });
    expect(toCandidate.every((id) => half.arm(id) === 'candidate')).toBe(true);
    // a seed splits another way
    const seeded = abVerifier(graph('met'), graph('met'), { share: 0.1, seed: 'experiment-2' });
    expect(ids.filter((id) => seeded.arm(id) === 'candidate')).not.toEqual(toCandidate);
    expect(abVerifier(graph('met'), graph('met'), { share: 0 }).arm('case-1')).toBe('primary');
    expect(abVerifier(graph('met'), graph('met'), { share: 1 }).arm('case-1')).toBe('candidate');
  });

  it('measures each arm: agreement with the labels, uncertain rate, cost and latency', async () => {
    const results: AbResult[] = [];
    const all = cases(40);
    // the labels say met everywhere: the primary agrees, the candidate (always uncertain) never does
    const labels = all.flatMap((item) => criteria.map((criterion) => ({ caseId: item.id, criterionId: criterion.id, status: 'met' as const })));
    const verifier = abVerifier(graph('met'), graph('uncertain'), { share: 0.5, labels, onResult: (result) => void results.push(result) });
    const returned: Array<{ caseId: string; status: string }> = [];
    await verifyCases(verifier, all, criteria, { concurrency: 4, onResult: (result) => void returned.push(result) });

    const toCandidate = all.filter((item) => verifier.arm(item.id) === 'candidate').length;
    const metrics = verifier.metrics();
    expect(metrics).toMatchObject({ share: 0.5, rolledBack: false });
    expect(metrics.candidate).toMatchObject({ runs: toCandidate * 2, uncertain: toCandidate * 2, uncertainRate: 1, labelled: toCandidate * 2, agreed: 0, agreement: 0, failures: 0 });
    expect(metrics.primary).toMatchObject({ runs: (40 - toCandidate) * 2, uncertain: 0, uncertainRate: 0, agreement: 1 });
    // two model calls of 1,000 + 500 tokens at $1 per million each: $0.003 a run
    expect(metrics.primary.meanCostUsd).toBeCloseTo(0.003, 9);
    expect(metrics.candidate.costUsd).toBeCloseTo(0.003 * toCandidate * 2, 9);
    expect(metrics.primary.latencyMs.p95).toBeGreaterThan(0);
    expect(metrics.primary.latencyMs.p50).toBeLessThanOrEqual(metrics.primary.latencyMs.p95);
    // each case's verdicts came from its arm, every criterion of it from the same one
    for (const result of returned) expect(result.status).toBe(verifier.arm(result.caseId) === 'candidate' ? 'uncertain' : 'met');
    expect(results).toHaveLength(80);
    expect(results.find((result) => result.arm === 'candidate')).toMatchObject({ label: 'met', agreed: false, result: { status: 'uncertain' } });
  });

  it('rolls back at once: a flag read before each case, or rollback(), sends every new case to the primary', async () => {
    let flag = false;
    const verifier = abVerifier(graph('met'), graph('not_met'), { share: 1, rollback: () => flag });
    await verifyCases(verifier, cases(3), criteria.slice(0, 1), { concurrency: 1 });
    expect(verifier.metrics().candidate.runs).toBe(3);
    flag = true;
    const after: string[] = [];
    await verifyCases(verifier, cases(3), criteria.slice(0, 1), { concurrency: 1, onResult: (result) => void after.push(result.status) });
    expect(after).toEqual(['met', 'met', 'met']);
    expect(verifier.metrics()).toMatchObject({ rolledBack: true, primary: { runs: 3 }, candidate: { runs: 3 } });

    const switched = abVerifier(graph('met'), graph('not_met'), { share: 1 });
    switched.rollback();
    expect(switched.arm('case-0')).toBe('primary');
    expect(switched.metrics().rolledBack).toBe(true);
  });

  it('a rollback flag that throws rolls back, and onResult failures never reach the caller: each counted, logged once', async () => {
    const logger = recordingLogger();
    const verifier = abVerifier(graph('met'), graph('not_met'), {
      share: 1,
      rollback: () => {
        throw new Error('flag service down');
      },
      onResult: () => {
        throw new Error('sink down');
      },
      logger,
    });
    const statuses: string[] = [];
    await verifyCases(verifier, cases(2), criteria.slice(0, 1), { concurrency: 1, onResult: (result) => void statuses.push(result.status) });
    expect(statuses).toEqual(['met', 'met']);
    expect(verifier.misses()).toEqual({ callback: 2, flag: 2 });
    expect(logger.warnings).toEqual([
      '[panoptes] the A/B rollback flag threw; cases go to the primary while it does. Later failures are counted, not logged.',
      '[panoptes] the A/B onResult callback failed; the verdict is unaffected. Later failures are counted, not logged.',
    ]);
  });

  it('counts a run that throws as a failure of its arm', async () => {
    const broken = { invoke: async () => Promise.reject(new Error('candidate down')) };
    const verifier = abVerifier(graph('met'), broken, { share: 1 });
    await verifyCases(verifier, cases(1), criteria.slice(0, 1));
    expect(verifier.metrics().candidate).toMatchObject({ failures: 1, runs: 0 });
  });

  it('rejects a bad share or label, naming it', () => {
    expect(() => abVerifier(graph('met'), graph('met'), { share: 1.5 })).toThrow('Invalid option `share`: received 1.5. Pass the share of cases for the candidate, a number from 0 to 1 (0.1 sends a tenth of them).');
    expect(() => abVerifier(graph('met'), graph('met'), { share: '0.1' as never })).toThrow('Invalid option `share`: received "0.1".');
    expect(() => abVerifier(graph('met'), graph('met'), { share: 0.1, labels: [{ caseId: 'a', criterionId: 'b', status: 'yes' as never }] })).toThrow(
      "Invalid option `labels[0]`: received {\"caseId\":\"a\",\"criterionId\":\"b\",\"status\":\"yes\"}. Pass { caseId, criterionId, status } with status 'met', 'not_met' or 'uncertain'.",
    );
  });
});
