import { HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { describe, expect, it } from 'vitest';
import { createReactGraph, createVerificationGraph, type VerificationFallbackContext } from '../../../../adapters/langgraph/index.js';
import { answerSchema, calls, httpError, noWait, searchTool } from './helpers.js';
import { FILED_IN_TIME, lateClaim, refundPolicy } from './refund-reviewer.js';

describe('a fallback that can decide', () => {
  it('hands the fallback function the case, the criterion and the state, and takes its whole verdict', async () => {
    const seen: VerificationFallbackContext[] = [];
    const verifier = createVerificationGraph({
      model: fakeModel().alwaysThrow(httpError(401, 'Incorrect API key provided')),
      retriever: refundPolicy,
      fallback: (context) => {
        seen.push(context);
        const days = context.caseBundle.days_since_flight as number;
        return { status: days <= 30 ? 'met' : 'not_met', confidence: 1, rationale: `rule 1.1: filed after ${days} days` };
      },
      ...noWait,
    });
    const { result } = await verifier.invoke({ caseBundle: lateClaim, criterion: FILED_IN_TIME });
    expect(result).toMatchObject({ status: 'not_met', confidence: 1, rationale: 'rule 1.1: filed after 120 days', citations: [], rejectedCitations: [], fallbackUsed: true });
    expect(result!.reasonCode).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ caseBundle: lateClaim, criterion: FILED_IN_TIME, state: { criterion: FILED_IN_TIME, react: { status: 'running' } } });
    expect((seen[0]!.error as Error).message).toBe('Incorrect API key provided');
    expect(seen[0]!.messages.map((message) => message.getType())).toEqual(['human']);
  });

  it('falls back to the rules of examples/verification when the model is down', async () => {
    const { ruleFallback } = await import('../../../../examples/verification/rule-fallback.js');
    const verifier = createVerificationGraph({ model: fakeModel().alwaysThrow(httpError(503, 'Service unavailable')), retriever: refundPolicy, fallback: ruleFallback, retry: { maxAttempts: 1 }, ...noWait });
    const caseBundle = { pain_duration_weeks: 10, conservative_therapy: { type: 'physical therapy', weeks: 8, improved: false }, red_flags: [] };
    const { result } = await verifier.invoke({ caseBundle, criterion: { id: 'necessity', text: 'Six weeks of failed conservative therapy.' } });
    expect(result).toMatchObject({ status: 'met', fallbackUsed: true });
    expect(result!.rationale).toContain('8 weeks of physical therapy');
  });
});

describe('retries', () => {
  it('follow the reference schedule by default: 3 retries after about 1 s, 2 s and 4 s, with jitter', async () => {
    const { search } = searchTool();
    const waits: number[] = [];
    const model = fakeModel().respond(httpError(503)).respond(httpError(503)).respond(httpError(429)).respond(calls(['finish', { answer: 'yes', confidence: 0.9 }]));
    const { react } = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, sleep: async (ms) => void waits.push(ms) }).compile().invoke({ messages: [new HumanMessage('Covered?')] });
    expect(react).toMatchObject({ status: 'finished', modelAttempts: 4 });
    expect(waits).toHaveLength(3);
    [1000, 2000, 4000].forEach((base, index) => {
      expect(waits[index]).toBeGreaterThanOrEqual(base);
      expect(waits[index]).toBeLessThanOrEqual(base * 1.25);
    });
  });

  it('follow a configured schedule, waited for real', async () => {
    const { search } = searchTool();
    const model = fakeModel().respond(httpError(429)).respond(httpError(429)).respond(calls(['finish', { answer: 'yes', confidence: 0.9 }]));
    const started = performance.now();
    const { react } = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, retry: { maxAttempts: 3, initialIntervalMs: 20, backoffFactor: 2, jitter: false } }).compile().invoke({ messages: [new HumanMessage('Covered?')] });
    expect(react).toMatchObject({ status: 'finished', modelAttempts: 3 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(55); // 20 ms, then 40 ms
  });

  it('retry only what retryOn says is worth it', async () => {
    const { search } = searchTool();
    const model = fakeModel().respond(httpError(429)).respond(calls(['finish', { answer: 'yes', confidence: 0.9 }]));
    const { react } = await createReactGraph({ model, tools: [search], finishSchema: answerSchema, retry: { retryOn: () => false }, ...noWait }).compile().invoke({ messages: [new HumanMessage('Covered?')] });
    expect(react).toMatchObject({ status: 'uncertain', reasonCode: 'llm_error', modelAttempts: 1 });
  });
});
