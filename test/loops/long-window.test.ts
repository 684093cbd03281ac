import { describe, expect, it } from 'vitest';
import { createFakeClock, createFakeEmbedder } from '../../src/testing/index.js';
import { detectorFor, say } from './helpers.js';

const DIMENSIONS = 16;
/** Orthogonal unit vectors, one per filler step, so fillers never match each other or the loop. */
const basis = (axis: number) => Array.from({ length: DIMENSIONS }, (_, d) => (d === axis ? 1 : 0));
const near = (axis: number, other: number) => basis(axis).map((value, d) => (d === other ? 0.2 : value));

const vectors: Record<string, number[]> = { 'plan the trip': basis(0), 'plan the journey': near(0, 1) };
for (let i = 0; i < 12; i++) vectors[`filler ${i}`] = basis(2 + i);

async function loopAfter(fillers: number, options: Parameters<typeof detectorFor>[0]) {
  const detector = detectorFor({ embedder: createFakeEmbedder({ vectors }), ...options });
  await detector.observe('s1', say('plan the trip'));
  for (let i = 0; i < fillers; i++) expect(await detector.observe('s1', say(`filler ${i}`))).toBeNull();
  return detector.observe('s1', say('plan the journey'));
}

describe('long window', () => {
  it.each(['brute-force', 'hnsw', 'auto'] as const)('catches a loop longer than the short window (%s index)', async (kind) => {
    expect(await loopAfter(10, {})).toBeNull();
    const report = await loopAfter(10, { longWindow: { size: 50, kind } });
    expect(report).toMatchObject({ kind: 'semantic', evidence: { steps: [1, 12], window: 'long' } });
    expect(report!.evidence.similarity).toBeGreaterThan(0.95);
  });

  it('holds at least `size` steps and at most twice that, dropping old ones in blocks of `size`', async () => {
    const options = { window: 1, longWindow: { size: 4, kind: 'brute-force' as const } };
    // Blocks: [trip, f0, f1, f2] [f3 .. f6]; the ninth step (f7) starts a third block and drops the first.
    for (const fillers of [1, 3, 5, 7]) expect((await loopAfter(fillers, options))?.evidence.window, `after ${fillers}`).toBe('long');
    expect(await loopAfter(8, options)).toBeNull();
  });

  it('finds the paraphrase behind many literal repeats of the step', async () => {
    const detector = detectorFor({ embedder: createFakeEmbedder({ vectors }), window: 1, longWindow: { size: 50, kind: 'hnsw' }, alternation: false, toolCycle: false });
    await detector.observe('s1', say('plan the trip'));
    let last = null;
    for (let i = 0; i < 12; i++) {
      await detector.observe('s1', say(`filler ${i}`));
      last = await detector.observe('s1', say('plan the journey'));
    }
    // Copies of the journey are held once, so they never crowd the trip out of the nearest candidates.
    expect(last).toMatchObject({ kind: 'semantic', evidence: { steps: [1, 25], window: 'long' } });
  });

  it('forgets steps older than ttlMs', async () => {
    const clock = createFakeClock();
    const detector = detectorFor({ embedder: createFakeEmbedder({ vectors }), window: 1, longWindow: { size: 50, kind: 'brute-force' }, ttlMs: 60_000, clock });
    await detector.observe('s1', say('plan the trip'));
    await detector.observe('s1', say('filler 0'));
    clock.advance(60_000);
    expect(await detector.observe('s1', say('plan the journey'))).toBeNull();
  });

  it('keeps one index per session and tenant', async () => {
    const detector = detectorFor({ embedder: createFakeEmbedder({ vectors }), window: 1, longWindow: { size: 50, kind: 'brute-force' } });
    await detector.observe('s1', say('plan the trip'), { tenant: 'a' });
    await detector.observe('s1', say('filler 0'), { tenant: 'b' });
    await detector.observe('s1', say('filler 1'), { tenant: 'b' });
    expect(await detector.observe('s1', say('plan the journey'), { tenant: 'b' })).toBeNull();
  });
});
