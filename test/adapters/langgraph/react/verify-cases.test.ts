import { MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { createVerificationGraph, policyRetriever, verifyCases, type CaseCriterionResult, type VerificationGraph } from '../../../../adapters/langgraph/index.js';
import { InvalidOptionError } from '../../../../src/index.js';
import { calls, noWait, readingModel } from './helpers.js';

const criteria = [
  { id: 'a', text: 'First requirement.' },
  { id: 'b', text: 'Second requirement.' },
];
const cases = Array.from({ length: 6 }, (_, index) => ({ id: `case-${index}`, caseBundle: { id: `case-${index}` } }));
const QUOTE = 'Alcohol is never reimbursed.';
const retriever = policyRetriever({ source: 'meals.md', text: `## Meals\n${QUOTE}` });

/** A model that searches, then answers met citing the policy. */
const answering = () => readingModel((messages) => (messages.some((message) => message.getType() === 'tool') ? calls(['finish', { status: 'met', confidence: 0.9, citations: [{ source: 'meals.md', quote: QUOTE }], rationale: 'ok' }]) : calls(['search_policy', { query: 'alcohol' }])));

/** A stand-in graph that answers with `status`, after `delayMs`, counting the runs in flight. */
function fakeGraph(status: (criterionId: string) => string, { delayMs = 5, checkpointer }: { delayMs?: number; checkpointer?: unknown } = {}) {
  const seen = { inFlight: 0, most: 0, threads: [] as string[] };
  const graph = {
    checkpointer,
    async invoke(input: { criterion: { id: string } }, config: { configurable?: { thread_id?: string } }) {
      seen.inFlight++;
      seen.most = Math.max(seen.most, seen.inFlight);
      if (config.configurable?.thread_id) seen.threads.push(config.configurable.thread_id);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      seen.inFlight--;
      return { result: { criterionId: input.criterion.id, status: status(input.criterion.id), confidence: 0.5, citations: [], rejectedCitations: [], rationale: '', trace: [], usage: {}, promptId: 'p', model: 'm', fallbackUsed: false } };
    },
  };
  return { graph: graph as unknown as VerificationGraph, seen };
}

describe('verifyCases', () => {
  it('runs every criterion on every case, `concurrency` at once across cases, each result with its case', async () => {
    const { graph, seen } = fakeGraph(() => 'met');
    const results: CaseCriterionResult[] = [];
    const summary = await verifyCases(graph, cases, criteria, { concurrency: 5, onResult: (result) => void results.push(result) });
    expect(summary).toEqual({ verified: 12, skipped: 0, stopped: false });
    expect(seen.most).toBe(5);
    expect(results.map((result) => `${result.caseId}/${result.criterionId}`).sort()).toEqual(cases.flatMap((item) => criteria.map((criterion) => `${item.id}/${criterion.id}`)).sort());
  });

  it('skips the pairs already done, and stops taking runs once its signal is aborted', async () => {
    const { graph } = fakeGraph(() => 'met');
    const seen: string[] = [];
    const summary = await verifyCases(graph, cases, criteria, { concurrency: 2, skip: (caseId, criterionId) => caseId !== 'case-5' || criterionId === 'a', onResult: (result) => void seen.push(`${result.caseId}/${result.criterionId}`) });
    expect(summary).toEqual({ verified: 1, skipped: 11, stopped: false });
    expect(seen).toEqual(['case-5/b']);

    const stop = new AbortController();
    const partial = await verifyCases(graph, cases, criteria, { concurrency: 2, signal: stop.signal, onResult: () => stop.abort() });
    expect(partial.stopped).toBe(true);
    expect(partial.verified).toBe(2); // the two in flight finished and were reported
  });

  it('deletes each run’s thread from the checkpointer once its result is in, unless keepThreads', async () => {
    for (const keepThreads of [false, true]) {
      const checkpointer = new MemorySaver();
      const graph = createVerificationGraph({ model: answering(), retriever, checkpointer, ...noWait });
      const statuses: string[] = [];
      await verifyCases(graph, cases, criteria, { concurrency: 4, keepThreads, onResult: (result) => void statuses.push(result.status) });
      expect(statuses).toEqual(new Array(12).fill('met'));
      const threads = new Set<string>();
      for await (const checkpoint of checkpointer.list({})) threads.add(String(checkpoint.config.configurable?.thread_id));
      expect(threads.size).toBe(keepThreads ? 12 : 0);
      if (keepThreads) expect([...threads].every((thread) => /^case-\d:[ab]:[0-9a-f]{8}$/.test(thread))).toBe(true);
    }
  });

  it('keeps the thread of a paused run, which a resume needs, and passes any status through', async () => {
    const deleted: string[] = [];
    const { graph, seen } = fakeGraph((id) => (id === 'a' ? 'paused' : 'needs_review'), { checkpointer: { deleteThread: async (thread: string) => void deleted.push(thread) } });
    const statuses: string[] = [];
    await verifyCases(graph, cases.slice(0, 2), criteria, { onResult: (result) => void statuses.push(result.status) });
    expect(statuses.sort()).toEqual(['needs_review', 'needs_review', 'paused', 'paused']);
    expect(deleted.sort()).toEqual(seen.threads.filter((thread) => thread.includes(':b:')).sort());
    expect(deleted).toHaveLength(2);
  });

  it('reads cases from an async iterable, and refuses a bad concurrency', async () => {
    const { graph } = fakeGraph(() => 'met');
    async function* stream() {
      yield* cases.slice(0, 3);
    }
    expect((await verifyCases(graph, stream(), criteria, { concurrency: 2 })).verified).toBe(6);
    await expect(verifyCases(graph, cases, criteria, { concurrency: 0 })).rejects.toThrow(InvalidOptionError);
  });
});
