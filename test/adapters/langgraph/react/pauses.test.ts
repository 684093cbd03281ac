import { tool } from '@langchain/core/tools';
import { interrupt, MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { abVerifier, compareResults, createVerificationGraph, resumeCase, shadowVerifier, verifyCase, type CriterionResult, type ShadowDisagreement } from '../../../../adapters/langgraph/index.js';
import { calls, noWait } from './helpers.js';
import { FILED_IN_TIME, lateClaim, promptClaim, REFUND_CRITERIA, refundPolicy, refundReviewer } from './refund-reviewer.js';

/** A tool that asks a human reviewer: the run pauses until the answer comes back. */
const askReviewer = tool(async ({ question }: { question: string }) => `The reviewer answered: ${String(interrupt({ question }))}`, {
  name: 'ask_reviewer',
  description: 'Ask a human reviewer.',
  schema: z.object({ question: z.string() }),
});

/** The refund reviewer, asking a human before deciding when the claim is late. */
const cautiousReviewer = () =>
  refundReviewer({
    extraStep: (messages) => {
      const late = messages.some((message) => message.name === 'get_case_facts' && String(message.content).includes('"days_since_flight":120'));
      return late && !messages.some((message) => message.name === 'ask_reviewer') ? calls(['ask_reviewer', { question: 'Was the late filing excused?' }]) : undefined;
    },
  });

const cautiousVerifier = () => createVerificationGraph({ model: cautiousReviewer(), retriever: refundPolicy, tools: [askReviewer], checkpointer: new MemorySaver(), ...noWait });

describe('a criterion paused for a human', () => {
  it('comes back from verifyCase as paused, with its thread and the question, while the other criteria finish', async () => {
    const results = await verifyCase(cautiousVerifier(), lateClaim, REFUND_CRITERIA);
    const [filed, fare, payment] = results;
    expect(filed).toMatchObject({ criterionId: 'filed_in_time', status: 'paused', threadId: expect.stringMatching(/^filed_in_time-/), interrupts: [{ value: { question: 'Was the late filing excused?' } }] });
    expect(filed!.reasonCode).toBeUndefined();
    expect(filed!.trace.map((step) => step.action)).toEqual(['search_policy', 'get_case_facts', 'ask_reviewer']);
    expect(filed!.usage.iterations).toBe(3);
    expect(fare).toMatchObject({ status: 'not_met' });
    expect(payment).toMatchObject({ status: 'not_met' });
  });

  it('resumes with resumeCase and finishes on the same thread', async () => {
    const verifier = cautiousVerifier();
    const [paused] = await verifyCase(verifier, lateClaim, [FILED_IN_TIME]);
    const resumed = await resumeCase(verifier, paused!, 'no');
    expect(resumed).toMatchObject({ criterionId: 'filed_in_time', status: 'not_met', rationale: 'filed after 120 days', threadId: paused!.threadId, usage: { iterations: 4 } });
    expect(resumed.trace.map((step) => step.action)).toEqual(['search_policy', 'get_case_facts', 'ask_reviewer', 'finish']);
    expect(resumed.trace[2]!.observation).toBe('The reviewer answered: no');
  });

  it('starts afresh when a new case arrives on a paused thread', async () => {
    const verifier = cautiousVerifier();
    const [paused] = await verifyCase(verifier, lateClaim, [FILED_IN_TIME]);
    const { result } = await verifier.invoke({ caseBundle: promptClaim, criterion: FILED_IN_TIME }, { configurable: { thread_id: paused!.threadId } });
    expect(result).toMatchObject({ status: 'met', rationale: 'filed after 12 days', usage: { iterations: 3 } });
  });

  it('is no disagreement for the shadow verifier', async () => {
    const disagreements: ShadowDisagreement[] = [];
    const verifier = shadowVerifier(cautiousVerifier(), createVerificationGraph({ model: refundReviewer(), retriever: refundPolicy, checkpointer: new MemorySaver(), ...noWait }), { onDisagreement: (disagreement) => void disagreements.push(disagreement) });
    const [paused] = await verifyCase(verifier, lateClaim, [FILED_IN_TIME]);
    await verifier.settled();
    expect(paused!.status).toBe('paused');
    expect(disagreements).toEqual([]);
    expect(verifier.misses()).toEqual({ candidate: 0, callback: 0 });
    // resumed through the shadow verifier: the primary finishes, and the two now agree
    expect(await resumeCase(verifier, paused!, 'no')).toMatchObject({ status: 'not_met' });
    await verifier.settled();
    expect(disagreements).toEqual([]);
    expect(compareResults(paused!, { ...paused!, status: 'not_met' } as CriterionResult)).toBeUndefined();
  });
});

describe('a run paused on one arm of an A/B split', () => {
  it('resumes on the arm that began it, even after a rollback', async () => {
    const checkpointer = new MemorySaver();
    const primary = createVerificationGraph({ model: refundReviewer(), retriever: refundPolicy, checkpointer, ...noWait });
    const candidate = createVerificationGraph({ model: cautiousReviewer(), retriever: refundPolicy, tools: [askReviewer], checkpointer, ...noWait });
    const verifier = abVerifier(primary, candidate, { share: 1 });
    const [paused] = await verifyCase(verifier, lateClaim, [FILED_IN_TIME]);
    expect(paused).toMatchObject({ status: 'paused', interrupts: [{ value: { question: 'Was the late filing excused?' } }] });
    expect(verifier.metrics().candidate.runs).toBe(0); // a pause is no verdict yet
    verifier.rollback();
    const resumed = await resumeCase(verifier, paused!, 'no');
    expect(resumed).toMatchObject({ status: 'not_met', rationale: 'filed after 120 days', threadId: paused!.threadId });
    expect(resumed.trace.map((step) => step.action)).toEqual(['search_policy', 'get_case_facts', 'ask_reviewer', 'finish']);
    expect(verifier.metrics()).toMatchObject({ rolledBack: true, candidate: { runs: 1 }, primary: { runs: 0 } });
  });
});
