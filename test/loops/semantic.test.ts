import { describe, expect, it } from 'vitest';
import { createFakeClock, createFakeEmbedder } from '../../src/testing/index.js';
import { DEFAULT_LOOP_TTL_MS } from '../../src/loops/index.js';
import { call, detectorFor, say } from './helpers.js';

/** A unit vector at `degrees` from [1, 0]: cosine with it is cos(degrees). */
const at = (degrees: number) => [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
/** Degrees whose cosine is `similarity`. */
const angleFor = (similarity: number) => (Math.acos(similarity) * 180) / Math.PI;

/** Distinct steps far apart from each other (every 40 degrees on other axes), to fill windows. */
function spreadVectors(count: number): Record<string, number[]> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`other ${i}`, Array.from({ length: 2 + count }, (__, d) => (d === 2 + i ? 1 : 0))]));
}

const padded = (vector: number[], length: number) => [...vector, ...Array(length - vector.length).fill(0)];

describe('semantic loops', () => {
  it('reports a step whose embedding is above the threshold, with the similarity and both steps', async () => {
    const embedder = createFakeEmbedder({ vectors: { 'search flights to Paris': at(0), 'look up flights going to Paris': at(angleFor(0.97)) } });
    const detector = detectorFor({ embedder });
    expect(await detector.observe('s1', say('search flights to Paris'))).toBeNull();
    const report = await detector.observe('s1', say('look up flights going to Paris'));
    expect(report).toMatchObject({ kind: 'semantic', action: 'hint', step: 2, evidence: { steps: [1, 2], repetitions: 2, window: 'short' } });
    expect(report!.evidence.similarity).toBeCloseTo(0.97, 5);
    expect(embedder.calls).toEqual(['search flights to Paris', 'look up flights going to Paris']);
  });

  it('stays quiet just below the threshold, and the threshold is an option', async () => {
    const vectors = { a: at(0), b: at(angleFor(0.94)) };
    const quiet = detectorFor({ embedder: createFakeEmbedder({ vectors }) });
    await quiet.observe('s1', say('a'));
    expect(await quiet.observe('s1', say('b'))).toBeNull();
    const strict = detectorFor({ embedder: createFakeEmbedder({ vectors }), threshold: 0.9 });
    await strict.observe('s1', say('a'));
    expect((await strict.observe('s1', say('b')))?.kind).toBe('semantic');
  });

  it('embeds the text and the calls of a step, never results', async () => {
    const embedder = createFakeEmbedder();
    const detector = detectorFor({ embedder });
    await detector.observe('s1', { text: 'Searching.', toolCalls: [call('search', { b: 2, a: 1 })], toolResults: [{ name: 'search', content: 'secret result' }] });
    expect(embedder.calls).toEqual(['Searching.\nsearch({"a":1,"b":2})']);
  });

  it('compares with the last `window` steps: 5 steps back matches, 6 does not', async () => {
    const vectors = { loop: padded([1, 0], 8), 'loop again': padded([1, 0], 8), ...spreadVectors(6) };
    const run = async (between: number) => {
      const detector = detectorFor({ embedder: createFakeEmbedder({ vectors }) });
      await detector.observe('s1', say('loop'));
      for (let i = 0; i < between; i++) await detector.observe('s1', say(`other ${i}`));
      return detector.observe('s1', say('loop again'));
    };
    expect((await run(4))?.evidence.steps).toEqual([1, 6]);
    expect(await run(5)).toBeNull();
  });

  it('forgets steps older than ttlMs, read from the injected clock', async () => {
    const vectors = { first: at(0), second: at(1) };
    const check = async (elapsed: number) => {
      const clock = createFakeClock();
      const detector = detectorFor({ embedder: createFakeEmbedder({ vectors }), clock });
      await detector.observe('s1', say('first'));
      clock.advance(elapsed);
      return detector.observe('s1', say('second'));
    };
    expect((await check(DEFAULT_LOOP_TTL_MS - 1))?.kind).toBe('semantic');
    expect(await check(DEFAULT_LOOP_TTL_MS)).toBeNull();
  });

  it('keeps sessions and tenants apart: identical session ids in two tenants never match', async () => {
    const embedder = createFakeEmbedder({ vectors: { x: at(0), y: at(1) } });
    const detector = detectorFor({ embedder });
    await detector.observe('s1', say('x'), { tenant: 'acme' });
    expect(await detector.observe('s1', say('y'), { tenant: 'globex' })).toBeNull();
    expect(await detector.observe('s2', say('y'), { tenant: 'acme' })).toBeNull();
    expect((await detector.observe('s1', say('y'), { tenant: 'acme' }))?.kind).toBe('semantic');
  });

  it('escalates a loop that keeps rephrasing: hint, stronger hint, stop', async () => {
    const embedder = createFakeEmbedder({ vectors: { a: at(0), b: at(1), c: at(2), d: at(3) } });
    const detector = detectorFor({ embedder });
    const reports = [];
    for (const text of ['a', 'b', 'c', 'd']) reports.push(await detector.observe('s1', say(text)));
    expect(reports.map((report) => report?.action ?? '-')).toEqual(['-', 'hint', 'stronger-hint', 'stop']);
    expect(new Set(reports.slice(1).map((report) => report!.loopId)).size).toBe(1);
  });

  it('checks the steps of one session in the order they were made, even when embeddings answer out of order', async () => {
    const delays: Record<string, number> = { a: 30, b: 0 };
    const embedder = createFakeEmbedder({ embed: (text) => new Promise((resolve) => setTimeout(() => resolve(text === 'a' ? at(0) : at(1)), delays[text])) });
    const detector = detectorFor({ embedder, timeoutMs: 1000 });
    const [first, second] = await Promise.all([detector.observe('s1', say('a')), detector.observe('s1', say('b'))]);
    expect(first).toBeNull();
    expect(second).toMatchObject({ kind: 'semantic', evidence: { steps: [1, 2] } });
  });

  it('leaves word-for-word repeats to the structural checks (an edit-and-test cycle stays quiet), and embeds them once', async () => {
    const embedder = createFakeEmbedder();
    const detector = detectorFor({ embedder });
    const steps = [0, 1, 2, 3].flatMap((i) => [{ toolCalls: [call('edit', { file: 'a.ts', patch: `fix ${i}` })] }, { toolCalls: [call('run_tests')] }]);
    const reports = [];
    for (const step of steps) reports.push(await detector.observe('s1', step));
    expect(reports.every((report) => report === null)).toBe(true);
    expect(embedder.calls.filter((text) => text === 'run_tests({})')).toHaveLength(1);
  });

  it('reports structural and semantic loops of one step together, the strongest action first', async () => {
    const embedder = createFakeEmbedder({ vectors: { 'Let me search again.': at(0), 'I will search once more.': at(1) } });
    const detector = detectorFor({ embedder });
    const reports = [];
    for (const text of ['Let me search again.', 'I will search once more.', 'I will search once more.', 'I will search once more.']) {
      reports.push(await detector.observe('s1', say(text)));
    }
    // Each rephrasing matches the first wording; the fourth step is also the third identical message in a row.
    expect(reports.map((report) => report?.action ?? '-')).toEqual(['-', 'hint', 'stronger-hint', 'stop']);
    expect(reports[3]).toMatchObject({ kind: 'semantic', detection: 3, also: [{ kind: 'monologue', detection: 1 }] });
  });
});
