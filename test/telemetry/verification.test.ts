import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerificationGraph, verifyCase } from '../../adapters/langgraph/index.js';
import { calls, httpError, noWait, withUsage } from '../adapters/langgraph/react/helpers.js';
import { FILED_IN_TIME, lateClaim, promptClaim, REFUND_CRITERIA, refundPolicy, refundReviewer } from '../adapters/langgraph/react/refund-reviewer.js';
import { createOtel, descendsFrom } from './harness.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

describe('telemetry of a verification', () => {
  it('a span per case, per criterion, per model step and per tool call, under the host span, with counters and a duration histogram', async () => {
    const otel = createOtel();
    const telemetry = { tracer: otel.tracer, meter: otel.meter };
    const verifier = createVerificationGraph({ model: refundReviewer(), retriever: refundPolicy, checkpointer: new MemorySaver(), ...telemetry, ...noWait });
    const results = await otel.tracer.startActiveSpan('app.review', async (span) => {
      const verdicts = await verifyCase(verifier, promptClaim, REFUND_CRITERIA, { concurrency: 2, ...telemetry });
      span.end();
      return verdicts;
    });
    expect(results.map((result) => result.status)).toEqual(['met', 'met', 'met']);

    const spans = otel.spans();
    const host = otel.span('app.review');
    const verifiedCase = otel.span('panoptes.verify_case');
    expect(descendsFrom(spans, verifiedCase, host)).toBe(true);
    expect(verifiedCase.attributes).toMatchObject({ 'panoptes.verification.criteria': 3, 'panoptes.verification.statuses': ['met', 'met', 'met'] });

    const criteria = spans.filter((span) => span.name === 'panoptes.verify_criterion');
    expect(criteria).toHaveLength(3);
    const filed = criteria.find((span) => span.attributes['panoptes.criterion.id'] === 'filed_in_time')!;
    expect(descendsFrom(spans, filed, verifiedCase)).toBe(true);
    expect(filed.attributes).toMatchObject({
      'panoptes.verification.status': 'met',
      'panoptes.react.status': 'finished',
      'panoptes.react.iterations': 3,
      'panoptes.react.model_attempts': 3,
      'panoptes.react.cached_tool_calls': 0,
      'panoptes.react.cost_usd': 0,
      'gen_ai.usage.input_tokens': 0,
      'gen_ai.usage.output_tokens': 0,
      'gen_ai.conversation.id': results[0]!.threadId,
    });
    expect(filed.attributes['panoptes.react.reason_code']).toBeUndefined();

    const steps = spans.filter((span) => descendsFrom(spans, span, filed)).map((span) => span.name);
    expect(steps.filter((name) => name === 'panoptes.react_model')).toHaveLength(3);
    expect(steps.filter((name) => name.startsWith('panoptes.react_tool')).sort()).toEqual(['panoptes.react_tool get_case_facts', 'panoptes.react_tool search_policy']);

    expect(await otel.points('panoptes.react.runs')).toEqual([{ attributes: { 'panoptes.react.status': 'finished', 'panoptes.verification.status': 'met' }, value: 3 }]);
    expect(await otel.points('panoptes.react.duration')).toEqual([{ attributes: { 'panoptes.react.status': 'finished', 'panoptes.verification.status': 'met' }, value: 3 }]);
    const toolCalls = await otel.points('panoptes.react.tool_calls');
    expect(toolCalls.reduce((sum, point) => sum + point.value, 0)).toBe(6);
  });

  it('records tokens, cost and the reason code of a run that ran out of budget', async () => {
    const otel = createOtel();
    const model = fakeModel().respond(withUsage(calls(['search_policy', { query: 'refund' }]), 300, 20)).respond(withUsage(calls(['search_policy', { query: 'late' }]), 400, 30));
    const verifier = createVerificationGraph({ model, retriever: refundPolicy, maxIterations: 2, prices: { 'gpt-4o-mini': { input: 1, output: 2 } }, tracer: otel.tracer, meter: otel.meter, ...noWait });
    await verifier.invoke({ caseBundle: lateClaim, criterion: FILED_IN_TIME });
    expect(otel.span('panoptes.verify_criterion').attributes).toMatchObject({
      'panoptes.verification.status': 'uncertain',
      'panoptes.react.status': 'uncertain',
      'panoptes.react.reason_code': 'budget_iterations',
      'panoptes.react.iterations': 2,
      'gen_ai.usage.input_tokens': 700,
      'gen_ai.usage.output_tokens': 50,
      'panoptes.react.cost_usd': 0.0008,
    });
    const model_ = otel.spans().filter((span) => span.name === 'panoptes.react_model');
    expect(model_.map((span) => span.attributes['gen_ai.usage.input_tokens'])).toEqual([300, 400]);
    expect(model_[0]!.attributes['gen_ai.response.model']).toBe('gpt-4o-mini');
    expect(await otel.points('panoptes.react.runs')).toEqual([{ attributes: { 'panoptes.react.status': 'uncertain', 'panoptes.react.reason_code': 'budget_iterations', 'panoptes.verification.status': 'uncertain' }, value: 1 }]);
  });

  it('redacts case data and provider error text before they enter the trace, the detail or a span', async () => {
    const otel = createOtel();
    const card = '4111 1111 1111 1111';
    const caseBundle = { ...lateClaim, card_number: card, agent_note: 'api_key=sk-live-abcdefghijklmnopqrstu' };
    const model = fakeModel()
      .respond(calls(['get_case_facts', { fields: ['card_number', 'agent_note'] }]))
      .respond(httpError(401, 'Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz0123'));
    const verifier = createVerificationGraph({ model, retriever: refundPolicy, tracer: otel.tracer, meter: otel.meter, redactPatterns: [/\b(?:\d{4} ){3}\d{4}\b/g], ...noWait });
    const { result } = await verifier.invoke({ caseBundle, criterion: FILED_IN_TIME });
    expect(result).toMatchObject({ status: 'uncertain', reasonCode: 'llm_error' });
    expect(result!.detail).toBe('APIError (401): Incorrect API key provided: [REDACTED]');
    const observation = result!.trace[0]!.observation;
    expect(observation).toContain('[REDACTED]');
    expect(observation).not.toContain(card);
    expect(observation).not.toContain('sk-live');
    const exported = await otel.everything();
    for (const secret of [card, 'sk-live-abcdef', 'sk-proj-abcdef']) expect(exported).not.toContain(secret);
    expect(otel.span('panoptes.verify_criterion').attributes['panoptes.react.detail']).toBe('APIError (401): Incorrect API key provided: [REDACTED]');
  });
});
