import { fileURLToPath } from 'node:url';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { interrupt, MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGraphMonitor, createReactGraph, createVerificationGraph, verifyCase } from '../../../../adapters/langgraph/index.js';
import { InvalidOptionError, loadWorkflow } from '../../../../src/index.js';
import { recordingLogger } from '../../langchain/helpers.js';
import { answerSchema, calls, httpError, lastHuman, noWait, readingModel, searchTool } from './helpers.js';
import { FILED_IN_TIME, lateClaim, promptClaim, refundPolicy, refundReviewer, reviewStep } from './refund-reviewer.js';

const claimsThread = () => ({ configurable: { thread_id: `claims-${Math.random()}` } });

describe('a verification thread holding several evaluations', () => {
  it('verifies two different cases on one thread and gives each its own verdict', async () => {
    const model = refundReviewer();
    const verifier = createVerificationGraph({ model, retriever: refundPolicy, checkpointer: new MemorySaver(), ...noWait });
    const thread = claimsThread();
    const first = await verifier.invoke({ caseBundle: promptClaim, criterion: FILED_IN_TIME }, thread);
    const callsBefore = model.calls.length;
    const second = await verifier.invoke({ caseBundle: lateClaim, criterion: FILED_IN_TIME }, thread);
    expect(first.result).toMatchObject({ status: 'met', rationale: 'filed after 12 days' });
    expect(second.result).toMatchObject({ status: 'not_met', rationale: 'filed after 120 days', usage: { iterations: 3, cachedToolCalls: 0 } });
    expect(second.result!.trace.map((step) => step.action)).toEqual(['search_policy', 'get_case_facts', 'finish']);
    expect(second.result!.continued).toBeUndefined();
    // the model never read the first case: its messages left the thread
    for (const { messages } of model.calls.slice(callsBefore)) expect(messages.filter((message) => message.getType() === 'human')).toHaveLength(1);
    const { values } = await verifier.getState(thread);
    expect(values.messages.filter((message: HumanMessage) => message.getType() === 'human')).toHaveLength(1);
    expect(values.react).toMatchObject({ status: 'finished', iterations: 3, evaluation: 2 });
  });

  it("shows the earlier evaluations to the model when asked (history: 'keep'), and says so in the result", async () => {
    const model = refundReviewer();
    const verifier = createVerificationGraph({ model, retriever: refundPolicy, checkpointer: new MemorySaver(), history: 'keep', ...noWait });
    const thread = claimsThread();
    await verifier.invoke({ caseBundle: promptClaim, criterion: FILED_IN_TIME }, thread);
    const callsBefore = model.calls.length;
    const { result } = await verifier.invoke({ caseBundle: lateClaim, criterion: FILED_IN_TIME }, thread);
    // the same calls as before, but the case changed: nothing is answered from the first evaluation's cache
    expect(result).toMatchObject({ status: 'not_met', rationale: 'filed after 120 days', continued: true, usage: { iterations: 3, cachedToolCalls: 0 } });
    expect(result!.trace.map((step) => step.action)).toEqual(['search_policy', 'get_case_facts', 'finish']);
    expect(model.calls[callsBefore]!.messages.filter((message) => message.getType() === 'human')).toHaveLength(2);
  });

  it('gives the next case the whole budget after an evaluation spent it', async () => {
    // on the prompt claim the reviewer searches once more, which its budget of 3 calls does not allow
    const prompt = (messages: BaseMessage[]) => messages.some((message) => message.name === 'get_case_facts' && String(message.content).includes('"days_since_flight":12}'));
    const searches = (messages: BaseMessage[]) => messages.filter((message) => message.name === 'search_policy').length;
    const model = refundReviewer({ extraStep: (messages) => (prompt(messages) && searches(messages) < 2 ? calls(['search_policy', { query: 'late filing' }]) : undefined) });
    const verifier = createVerificationGraph({ model, retriever: refundPolicy, checkpointer: new MemorySaver(), maxIterations: 3, ...noWait });
    const thread = claimsThread();
    const spent = await verifier.invoke({ caseBundle: promptClaim, criterion: FILED_IN_TIME }, thread);
    expect(spent.result).toMatchObject({ status: 'uncertain', reasonCode: 'budget_iterations', usage: { iterations: 3 } });
    const next = await verifier.invoke({ caseBundle: lateClaim, criterion: FILED_IN_TIME }, thread);
    expect(next.result).toMatchObject({ status: 'not_met', rationale: 'filed after 120 days', usage: { iterations: 3 } });
  });

  it('starts the workflow monitor afresh with each evaluation: a verdict before any search is refused on the second case too', async () => {
    const monitor = createGraphMonitor({ workflow: await loadWorkflow(fileURLToPath(new URL('../../../../examples/verification/verifier.yaml', import.meta.url))), logger: recordingLogger() });
    // gives a verdict before reading anything; once refused, reviews as the reviewer does
    const model = readingModel((messages) => {
      const since = messages.slice(messages.findLastIndex((message) => message.getType() === 'human'));
      return since.some((message) => message.getType() === 'tool') ? reviewStep(messages) : calls(['finish', { status: 'met', confidence: 0.9, citations: [], rationale: 'looks fine' }]);
    });
    const verifier = createVerificationGraph({ model, retriever: refundPolicy, checkpointer: new MemorySaver(), monitor, ...noWait });
    const thread = claimsThread();
    for (const caseBundle of [promptClaim, lateClaim]) {
      const { result } = await verifier.invoke({ caseBundle, criterion: FILED_IN_TIME }, thread);
      expect(result!.trace[0]).toMatchObject({ action: 'finish', error: true });
      expect(result!.trace[0]!.observation).toContain("It would break the rule 'search_before_deciding'");
      expect(result).toMatchObject({ status: caseBundle === promptClaim ? 'met' : 'not_met' });
    }
  });

  it('refuses a checkpointed run without a thread id, naming the fix, before anything runs', async () => {
    const model = refundReviewer();
    const verifier = createVerificationGraph({ model, retriever: refundPolicy, checkpointer: new MemorySaver(), ...noWait });
    const run = verifier.invoke({ caseBundle: promptClaim, criterion: FILED_IN_TIME });
    await expect(run).rejects.toThrow(InvalidOptionError);
    await expect(run).rejects.toThrow('Invalid option `configurable.thread_id`: received undefined. This graph keeps checkpoints: pass { configurable: { thread_id } }');
    expect(model.calls).toHaveLength(0);
  });
});

describe('a ReAct thread holding several evaluations', () => {
  // searches for the question, then answers about it
  const answering = () => readingModel((messages) => (messages.at(-1)?.getType() === 'human' ? calls(['search', { query: lastHuman(messages) }]) : calls(['finish', { answer: `about ${lastHuman(messages)}`, confidence: 0.9 }])));

  it('answers a new question on a finished thread afresh: budgets, cache and history start again', async () => {
    const { search, runs } = searchTool();
    const model = answering();
    const graph = createReactGraph({ model, tools: [search], finishSchema: answerSchema, maxIterations: 2, ...noWait }).compile({ checkpointer: new MemorySaver() });
    const thread = claimsThread();
    const first = await graph.invoke({ messages: [new HumanMessage('Is an MRI covered?')] }, thread);
    const second = await graph.invoke({ messages: [new HumanMessage('Is a CT scan covered?')] }, thread);
    expect(first.react).toMatchObject({ status: 'finished', output: { answer: 'about Is an MRI covered?' }, iterations: 2, evaluation: 1 });
    expect(second.react).toMatchObject({ status: 'finished', output: { answer: 'about Is a CT scan covered?' }, iterations: 2, evaluation: 2 });
    expect(second.messages.map((message) => message.getType())).toEqual(['human', 'ai', 'tool', 'ai', 'tool']);
    expect(runs).toEqual(['Is an MRI covered?', 'Is a CT scan covered?']);
    expect(model.calls[2]!.messages.map((message) => message.getType())).toEqual(['human']);
  });

  it('answers a new question on a thread paused by an interrupt afresh', async () => {
    const { search } = searchTool();
    const review = tool(async () => `reviewer said: ${String(interrupt('approve?'))}`, { name: 'human_review', description: 'Ask a human.', schema: z.object({}) });
    const model = readingModel((messages) => (lastHuman(messages) === 'Refund B1?' ? calls(['human_review', {}]) : messages.at(-1)?.getType() === 'human' ? calls(['search', { query: lastHuman(messages) }]) : calls(['finish', { answer: `about ${lastHuman(messages)}`, confidence: 0.9 }])));
    const graph = createReactGraph({ model, tools: [search, review], finishSchema: answerSchema, ...noWait }).compile({ checkpointer: new MemorySaver() });
    const thread = claimsThread();
    const paused = await graph.invoke({ messages: [new HumanMessage('Refund B1?')] }, thread);
    expect(paused.react.status).toBe('running');
    const next = await graph.invoke({ messages: [new HumanMessage('Is a CT scan covered?')] }, thread);
    expect(next.react).toMatchObject({ status: 'finished', output: { answer: 'about Is a CT scan covered?' }, iterations: 2, evaluation: 2 });
    expect(next.messages.map((message) => message.getType())).toEqual(['human', 'ai', 'tool', 'ai', 'tool']);
  });

  it('begins the new evaluation in the error handler when the model fails on its first call, and hands it to the fallback', async () => {
    const { search } = searchTool();
    let down = false;
    const model = readingModel((messages) => (down ? httpError(401, 'key revoked') : messages.at(-1)?.getType() === 'human' ? calls(['search', { query: lastHuman(messages) }]) : calls(['finish', { answer: `about ${lastHuman(messages)}`, confidence: 0.9 }])));
    const fallback = readingModel((messages) => calls(['finish', { answer: `fallback on ${lastHuman(messages)} (${messages.length} messages)`, confidence: 0.5 }]));
    const graph = createReactGraph({ model, fallback, tools: [search], finishSchema: answerSchema, ...noWait }).compile({ checkpointer: new MemorySaver() });
    const thread = claimsThread();
    await graph.invoke({ messages: [new HumanMessage('Is an MRI covered?')] }, thread);
    down = true;
    const { react } = await graph.invoke({ messages: [new HumanMessage('Is a CT scan covered?')] }, thread);
    expect(react).toMatchObject({ status: 'finished', output: { answer: 'fallback on Is a CT scan covered? (1 messages)' }, fallbackUsed: true, evaluation: 2, modelAttempts: 2 }); // the failed call and the fallback's
  });

  it("keeps the conversation for the model with history: 'keep', and marks the evaluation continued", async () => {
    const { search } = searchTool();
    const model = answering();
    const graph = createReactGraph({ model, tools: [search], finishSchema: answerSchema, maxIterations: 2, history: 'keep', ...noWait }).compile({ checkpointer: new MemorySaver() });
    const thread = claimsThread();
    await graph.invoke({ messages: [new HumanMessage('Is an MRI covered?')] }, thread);
    const second = await graph.invoke({ messages: [new HumanMessage('And a CT scan?')] }, thread);
    expect(second.react).toMatchObject({ status: 'finished', output: { answer: 'about And a CT scan?' }, iterations: 2, evaluation: 2, continued: true });
    expect(model.calls[2]!.messages.map((message) => message.getType())).toEqual(['human', 'ai', 'tool', 'ai', 'tool', 'human']);
  });
});

describe('verifyCase threads', () => {
  it('are deleted from the checkpointer once their results are in, unless kept', async () => {
    const checkpointer = new MemorySaver();
    const verifier = createVerificationGraph({ model: refundReviewer(), retriever: refundPolicy, checkpointer, ...noWait });
    const threads = () => Object.keys((checkpointer as unknown as { storage: Record<string, unknown> }).storage).length;
    const [result] = await verifyCase(verifier, promptClaim, [FILED_IN_TIME]);
    expect(result).toMatchObject({ status: 'met' });
    expect(threads()).toBe(0);
    await verifyCase(verifier, lateClaim, [FILED_IN_TIME], { keepThreads: true });
    expect(threads()).toBe(1);
  });
});
