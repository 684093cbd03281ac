import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { createGraphMonitor, createVerificationGraph, shadowVerifier, verifyCase, type ShadowDisagreement } from '../../../../adapters/langgraph/index.js';
import { createLoopDetector, createMonitor, InvalidOptionError, parseWorkflow, type MonitorEvents } from '../../../../src/index.js';
import { policyRetriever } from '../../../../examples/verification/policy-retriever.js';
import { recordingLogger } from '../../langchain/helpers.js';
import { calls, noWait, readingModel } from './helpers.js';

const caseBundle = { pain_duration_weeks: 10, conservative_therapy: { type: 'physical therapy', weeks: 8 }, icd10_code: 'M54.16' };
const necessity = { id: 'necessity', text: 'Low back pain for six weeks with six weeks of failed conservative therapy.' };
const QUOTE = 'has completed at least six weeks of conservative therapy without improvement';
const verdict = (overrides: Record<string, unknown> = {}) => calls(['finish', { status: 'met', confidence: 0.9, citations: [{ source: 'imaging-policy.md', section: '2.1', quote: QUOTE }], rationale: '8 weeks of physical therapy.', ...overrides }]);

/** The run the reference controller describes: search, read the case, locate the wording, decide. */
const diligentModel = () =>
  fakeModel()
    .respond(new AIMessage({ content: 'I need the policy on conservative therapy.', tool_calls: [{ name: 'search_policy', args: { query: 'conservative therapy six weeks' }, id: 's1', type: 'tool_call' }] }))
    .respond(calls(['get_case_facts', { fields: ['pain_duration_weeks', 'conservative_therapy.weeks', 'red_flags'] }]))
    .respond(calls(['find_in_policy', { text: 'completed at least six weeks of conservative therapy' }]))
    .respond(verdict());

describe('createVerificationGraph', () => {
  it('answers met with a verified citation, a trace and the usage', async () => {
    const model = diligentModel();
    const { result } = await createVerificationGraph({ model, retriever: policyRetriever(), ...noWait }).invoke({ caseBundle, criterion: necessity });
    expect(result).toMatchObject({ criterionId: 'necessity', status: 'met', confidence: 0.9, rejectedCitations: [], promptId: 'panoptes-verify-v1', fallbackUsed: false });
    expect(result!.citations).toEqual([{ source: 'imaging-policy.md', section: '2.1', quote: QUOTE }]);
    expect(result!.reasonCode).toBeUndefined();
    expect(result!.trace.map((step) => step.action)).toEqual(['search_policy', 'get_case_facts', 'find_in_policy', 'finish']);
    expect(result!.trace[0]!.thought).toBe('I need the policy on conservative therapy.');
    expect(result!.trace[0]!.observation).toContain('source: imaging-policy.md, section: 2.1');
    expect(JSON.parse(result!.trace[1]!.observation)).toEqual({ facts: { pain_duration_weeks: 10, 'conservative_therapy.weeks': 8 }, missing: ['red_flags'] });
    expect(result!.trace[2]!.observation).toContain('Exact match in imaging-policy.md, section 2.1');
    expect(result!.usage).toMatchObject({ iterations: 4, cachedToolCalls: 0, modelAttempts: 4, malformedToolCalls: 0 });
    // the model was told the criterion and which fields the case has, not their values
    expect(String(model.calls[0]!.messages.at(-1)!.content)).toBe(`Criterion necessity: ${necessity.text}\n\nCase fields you can read with get_case_facts: pain_duration_weeks, conservative_therapy, icd10_code.`);
  });

  it('cuts observations in the trace at 500 characters', async () => {
    const long = 'x'.repeat(2000);
    const model = fakeModel().respond(calls(['search_policy', { query: 'anything' }])).respond(verdict({ status: 'uncertain', citations: [] }));
    const { result } = await createVerificationGraph({ model, retriever: async () => [{ pageContent: long, metadata: { source: 'long.md' } }], ...noWait }).invoke({ caseBundle, criterion: necessity });
    expect(result!.trace[0]!.observation).toHaveLength(500);
    expect(result!.trace[0]!.observation.endsWith('…')).toBe(true);
  });

  it('removes a hallucinated citation and downgrades the verdict to uncertain (unsupported)', async () => {
    const model = fakeModel()
      .respond(calls(['search_policy', { query: 'conservative therapy' }]))
      .respond(verdict({ citations: [{ source: 'imaging-policy.md', section: '2.1', quote: 'MRI is always covered for back pain' }] }));
    const { result } = await createVerificationGraph({ model, retriever: policyRetriever(), ...noWait }).invoke({ caseBundle, criterion: necessity });
    expect(result).toMatchObject({ status: 'uncertain', reasonCode: 'unsupported', citations: [], confidence: 0.9 });
    expect(result!.rejectedCitations).toEqual([{ source: 'imaging-policy.md', section: '2.1', quote: 'MRI is always covered for back pain', reason: 'quote_not_found' }]);
    expect(result!.detail).toBe('met without a verified citation: 1 citation(s) quote nothing this run retrieved');
  });

  it('does not verify a true quote from a document the run never retrieved', async () => {
    const model = fakeModel().respond(verdict()); // cites the policy's exact words without searching
    const { result } = await createVerificationGraph({ model, retriever: policyRetriever(), ...noWait }).invoke({ caseBundle, criterion: necessity });
    expect(result).toMatchObject({ status: 'uncertain', reasonCode: 'unsupported' });
  });

  it('abstains below abstainBelow confidence', async () => {
    const model = fakeModel().respond(calls(['search_policy', { query: 'conservative therapy' }])).respond(verdict({ confidence: 0.5 }));
    const { result } = await createVerificationGraph({ model, retriever: policyRetriever(), ...noWait }).invoke({ caseBundle, criterion: necessity });
    expect(result).toMatchObject({ status: 'uncertain', reasonCode: 'low_confidence', detail: 'met at confidence 0.5, below abstainBelow (0.65)' });
    expect(result!.citations).toHaveLength(1);
  });

  it('ends retrieval_error, not a crash, when the retriever throws', async () => {
    const model = fakeModel().respond(calls(['search_policy', { query: 'therapy' }])).respond(verdict());
    const { result } = await createVerificationGraph({ model, retriever: async () => Promise.reject(new Error('index offline')), ...noWait }).invoke({ caseBundle, criterion: necessity });
    expect(result).toMatchObject({ status: 'uncertain', reasonCode: 'retrieval_error', detail: 'the retriever failed: index offline' });
    expect(model.callCount).toBe(1);
  });

  it('finds a paraphrase in the retrieved text with the fuzzy full-text search', async () => {
    const model = fakeModel().respond(calls(['search_policy', { query: 'repeat imaging twelve months' }])).respond(calls(['find_in_policy', { text: 'repeated MRI within twelve month of an earlier lumbar MRI' }])).respond(verdict({ status: 'uncertain', citations: [] }));
    const { result } = await createVerificationGraph({ model, retriever: policyRetriever(), ...noWait }).invoke({ caseBundle, criterion: necessity });
    expect(result!.trace[1]!.observation).toMatch(/^No exact match\. Closest passages:\n- imaging-policy\.md, section 4\.1: "4\.1 Repeat MRI of the lumbar spine within 12 months of a previous lumbar MRI is not covered/);
  });

  it('lets the workflow monitor refuse finish before any policy search, and tells the model why', async () => {
    const workflow = parseWorkflow(
      `name: verify
version: "1"
states:
  - { name: start, initial: true }
  - { name: research, classification: { tool_calls: [search_policy, get_case_facts, find_in_policy] } }
  - { name: decide, terminal: true, classification: { tool_calls: [finish] } }
transitions:
  - { from: start, to: research }
  - { from: start, to: decide }
  - { from: research, to: decide }
constraints:
  - { name: search_before_deciding, type: precedence, trigger: decide, target: research, severity: critical }
`,
      { source: 'verify.yaml' },
    );
    const monitor = createGraphMonitor({ workflow, logger: recordingLogger() });
    const model = fakeModel().respond(verdict()).respond(calls(['search_policy', { query: 'conservative therapy' }])).respond(verdict());
    const { result } = await createVerificationGraph({ model, retriever: policyRetriever(), monitor, ...noWait }).invoke({ caseBundle, criterion: necessity });
    const [refusal] = result!.trace;
    expect(refusal).toMatchObject({ action: 'finish', error: true });
    expect(refusal!.observation).toContain("The call to finish was refused and did not run. It would break the rule 'search_before_deciding'");
    expect(result).toMatchObject({ status: 'met', citations: [{ quote: QUOTE }] });
  });

  it('lets the loop detector stop a model that repeats one search', async () => {
    const model = readingModel(() => calls(['search_policy', { query: 'MRI coverage' }]));
    const loops = createLoopDetector({});
    const { result } = await createVerificationGraph({ model, retriever: policyRetriever(), loops, maxIterations: 10, ...noWait }).invoke({ caseBundle, criterion: necessity });
    expect(result).toMatchObject({ status: 'uncertain', reasonCode: 'loop_detected' });
    expect(result!.usage.iterations).toBeLessThan(10);
    expect(result!.usage.cachedToolCalls).toBe(result!.usage.iterations - 1); // the retriever ran once
    const hints = model.calls.map((call) => String(call.messages.at(-1)!.content)).filter((text) => text.startsWith('[Panoptes]'));
    expect(hints.length).toBeGreaterThan(0);
  });
});

describe('createVerificationGraph input and options', () => {
  const graph = () => createVerificationGraph({ model: fakeModel(), retriever: policyRetriever(), ...noWait });
  it('refuses a graph without a retriever', () => {
    expect(() => createVerificationGraph({ model: fakeModel(), retriever: undefined as never })).toThrow(InvalidOptionError);
    expect(() => createVerificationGraph({ model: fakeModel(), retriever: undefined as never })).toThrow('Invalid option `retriever`: received undefined. Pass a LangChain retriever');
  });
  it('answers an empty criterion with invalid_input, without calling the model', async () => {
    const { result } = await graph().invoke({ caseBundle, criterion: { id: 'c1', text: '  ' } });
    expect(result).toMatchObject({ criterionId: 'c1', status: 'uncertain', reasonCode: 'invalid_input', detail: "criterion c1 has no text: give the requirement in the policy's words" });
    expect(result!.usage).toMatchObject({ iterations: 0, modelAttempts: 0 });
  });
  it('refuses a 1 MB criterion text, naming the limit', async () => {
    const { result } = await graph().invoke({ caseBundle, criterion: { id: 'big', text: 'a'.repeat(1024 * 1024) } });
    expect(result).toMatchObject({ status: 'uncertain', reasonCode: 'invalid_input', detail: 'criterion big text is 1,048,576 bytes; the limit is 32,768 bytes (maxCriterionBytes)' });
  });
});

describe('verifyCase', () => {
  it('evaluates criteria concurrently, at most `concurrency` at once, in the criteria order', async () => {
    let inFlight = 0;
    let most = 0;
    const retriever = policyRetriever();
    const slowRetriever = async (query: string) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 10));
      inFlight--;
      return retriever(query);
    };
    // reads its request: searches once, then finishes naming the criterion it was given
    const model = readingModel((messages) => {
      const id = /^Criterion (\S+):/.exec(String(messages.find((message) => message.getType() === 'human')?.content))![1]!;
      return messages.some((message) => message.getType() === 'tool') ? verdict({ rationale: `about ${id}` }) : calls(['search_policy', { query: 'conservative therapy' }]);
    });
    const criteria = Array.from({ length: 7 }, (_, index) => ({ id: `c${index}`, text: `Requirement ${index}` }));
    const results = await verifyCase(createVerificationGraph({ model, retriever: slowRetriever, checkpointer: new MemorySaver(), ...noWait }), caseBundle, criteria, { concurrency: 3 });
    expect(results.map((result) => result.criterionId)).toEqual(criteria.map((criterion) => criterion.id));
    expect(results.map((result) => result.rationale)).toEqual(criteria.map((criterion) => `about ${criterion.id}`));
    expect(results.every((result) => result.status === 'met')).toBe(true);
    expect(most).toBe(3);
  });

  it('names a session of its own for each run of a graph without a checkpointer, so a monitor never merges two runs', async () => {
    const configs: Array<Record<string, any>> = [];
    const recording = { invoke: async (input: any, config?: Record<string, unknown>) => (configs.push(config!), { result: { criterionId: input.criterion.id } }) as never };
    await verifyCase(recording, caseBundle, [necessity, necessity]);
    const sessions = configs.map((config) => config.metadata.session_id as string);
    expect(sessions[0]).toMatch(/^necessity-/);
    expect(new Set(sessions).size).toBe(2);
    expect(configs.every((config) => config.configurable === undefined)).toBe(true);
  });

  it('refuses a concurrency that is not a whole number above 0', async () => {
    await expect(verifyCase(createVerificationGraph({ model: fakeModel(), retriever: policyRetriever() }), caseBundle, [necessity], { concurrency: 0 })).rejects.toThrow('Invalid option `concurrency`: received 0.');
  });
});

describe('shadowVerifier', () => {
  it('returns the primary results and reports where the candidate disagrees', async () => {
    const primaryModel = readingModel((messages) => (messages.some((message) => message.getType() === 'tool') ? verdict() : calls(['search_policy', { query: 'conservative therapy' }])));
    const candidateModel = readingModel((messages) => (messages.some((message) => message.getType() === 'tool') ? verdict({ status: 'not_met', confidence: 0.8 }) : calls(['search_policy', { query: 'conservative therapy' }])));
    const disagreements: ShadowDisagreement[] = [];
    const monitor = createMonitor({ workflow: parseWorkflow('name: verify\nversion: "1"\nstates:\n  - { name: start, initial: true }\n', { source: 'verify.yaml' }) });
    const events: Array<MonitorEvents['shadow-disagreement']> = [];
    monitor.on('shadow-disagreement', (event) => void events.push(event));
    const verifier = shadowVerifier(createVerificationGraph({ model: primaryModel, retriever: policyRetriever(), ...noWait }), createVerificationGraph({ model: candidateModel, retriever: policyRetriever(), ...noWait }), {
      onDisagreement: (disagreement) => void disagreements.push(disagreement),
      monitor,
    });
    const [result] = await verifyCase(verifier, caseBundle, [necessity]);
    expect(result).toMatchObject({ status: 'met', confidence: 0.9 });
    await verifier.settled();
    expect(disagreements).toHaveLength(1);
    expect(disagreements[0]).toMatchObject({ criterionId: 'necessity', differences: ['status'], citations: { onlyPrimary: [], onlyCandidate: [] } });
    expect(disagreements[0]!.confidenceDelta).toBeCloseTo(-0.1, 9);
    expect(disagreements[0]!.candidate.status).toBe('not_met');
    // the session of the primary's run: verifyCase names one per criterion run
    expect(events).toEqual([{ sessionId: expect.stringMatching(/^necessity-/), disagreement: { criterionId: 'necessity', differences: ['status'], primaryStatus: 'met', candidateStatus: 'not_met', confidenceDelta: disagreements[0]!.confidenceDelta, citations: { onlyPrimary: [], onlyCandidate: [] } } }]);
  });

  it('runs the candidate on a thread of its own when both share a checkpointer', async () => {
    const checkpointer = new MemorySaver();
    const answering = () => readingModel((messages) => (messages.some((message) => message.getType() === 'tool') ? verdict() : calls(['search_policy', { query: 'conservative therapy' }])));
    const verifier = shadowVerifier(createVerificationGraph({ model: answering(), retriever: policyRetriever(), checkpointer, ...noWait }), createVerificationGraph({ model: answering(), retriever: policyRetriever(), checkpointer, ...noWait }), { onDisagreement: () => {} });
    await verifyCase(verifier, caseBundle, [necessity], { threadId: () => 'case-1', keepThreads: true });
    await verifier.settled();
    const threads = new Set<string>();
    for await (const checkpoint of checkpointer.list({})) threads.add(String(checkpoint.config.configurable?.thread_id));
    expect([...threads].sort()).toEqual(['case-1', 'case-1:shadow']);
    expect(verifier.misses()).toEqual({ candidate: 0, callback: 0 });
  });

  it('never lets a failing candidate reach the primary caller', async () => {
    const logger = recordingLogger();
    const primary = createVerificationGraph({ model: readingModel((messages) => (messages.some((message) => message.getType() === 'tool') ? verdict() : calls(['search_policy', { query: 'therapy' }]))), retriever: policyRetriever(), ...noWait });
    const broken = { invoke: async () => Promise.reject(new Error('candidate down')) };
    const verifier = shadowVerifier(primary, broken, { onDisagreement: () => {}, logger });
    const [result] = await verifyCase(verifier, caseBundle, [necessity]);
    await verifier.settled();
    expect(result!.status).toBe('met');
    expect(verifier.misses()).toEqual({ candidate: 1, callback: 0 });
    expect(logger.warnings[0]).toContain('[panoptes] shadow candidate run failed');
  });
});
