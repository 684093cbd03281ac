import { describe, expect, it } from 'vitest';
import { createMissCounter } from '../../src/monitor/fail-open.js';
import { createFakeEmbedder } from '../../src/testing/index.js';
import { detectorFor, recordingLogger, say } from './helpers.js';

/** Three identical messages: a monologue the structural checks catch without any embedding. */
const monologue = [say('Checking.'), say('Checking.'), say('Checking.')];

async function observeAll(detector: ReturnType<typeof detectorFor>, steps = monologue) {
  const reports = [];
  for (const step of steps) reports.push(await detector.observe('s1', step));
  return reports;
}

describe('fail-open', () => {
  const faults = {
    'rejects': () => Promise.reject(new Error('model server down')),
    'throws synchronously': () => {
      throw new Error('bad config');
    },
    'returns NaN': () => [Number.NaN, 0, 0],
    'returns a non-vector': () => null as unknown as number[],
    'returns an empty vector': () => [],
  } satisfies Record<string, (text: string) => number[] | Promise<number[]>>;

  it.each(Object.entries(faults))('an embedder that %s leaves the structural checks working, counted and logged once', async (_, embed) => {
    const detector = detectorFor({ embedder: createFakeEmbedder({ embed }) });
    const reports = await observeAll(detector);
    expect(reports.map((report) => report?.kind ?? '-')).toEqual(['-', '-', 'monologue']);
    expect(detector.misses()).toEqual({ embedding: 3 });
    expect(detector.logger.warnings).toHaveLength(1);
    expect(detector.logger.warnings[0]).toMatch(/^\[panoptes\] The loop detector’s embedder (failed|returned an invalid vector \(\w[\w-]*\)); the step was checked structurally only\./);
  });

  it('an embedder that changes its vector length is caught, and the good vectors still work', async () => {
    let calls = 0;
    const embedder = createFakeEmbedder({ embed: (text) => (++calls === 2 ? [1, 0, 0] : text.startsWith('a') ? [1, 0] : [0.999, 0.04]) });
    const detector = detectorFor({ embedder });
    const reports = await observeAll(detector, [say('a1'), say('b1'), say('b2')]);
    expect(reports.map((report) => report?.kind ?? '-')).toEqual(['-', '-', 'semantic']);
    expect(detector.misses()).toEqual({ embedding: 1 });
    expect(detector.logger.warnings[0]).toContain('returned an invalid vector (wrong-length)');
  });

  it('an embedder that never answers costs at most timeoutMs per step', async () => {
    const detector = detectorFor({ embedder: createFakeEmbedder({ embed: () => new Promise<number[]>(() => {}) }), timeoutMs: 25 });
    const started = performance.now();
    const reports = await observeAll(detector);
    const elapsed = performance.now() - started;
    expect(reports.map((report) => report?.kind ?? '-')).toEqual(['-', '-', 'monologue']);
    expect(elapsed).toBeGreaterThanOrEqual(3 * 24);
    expect(elapsed).toBeLessThan(3 * 25 + 200);
    expect(detector.misses()).toEqual({ embedding: 3 });
    expect(detector.logger.warnings[0]).toContain('did not answer within 25 ms');
  });

  it('a slow embedder that answers within the budget is used', async () => {
    const embedder = createFakeEmbedder({ embed: (text) => new Promise((resolve) => setTimeout(() => resolve(text === 'x' ? [1, 0] : [0.99, 0.1]), 5)) });
    const detector = detectorFor({ embedder, timeoutMs: 500 });
    await detector.observe('s1', say('x'));
    expect((await detector.observe('s1', say('y')))?.kind).toBe('semantic');
    expect(detector.misses()).toEqual({});
  });

  it('warmUp embeds a probe once and fixes the vector length', async () => {
    const embedder = createFakeEmbedder({ dimensions: 4 });
    const detector = detectorFor({ embedder });
    await expect(detector.warmUp()).resolves.toBe(true);
    expect(embedder.calls).toHaveLength(1);
    const wrongLength = detectorFor({ embedder: createFakeEmbedder({ embed: (text) => (text === 'loop detector warm-up' ? [1, 0, 0, 0] : [1, 0]) }) });
    await wrongLength.warmUp();
    await wrongLength.observe('s1', say('x'));
    expect(wrongLength.misses()).toEqual({ embedding: 1 });
  });

  it('warmUp never throws: a failing or silent embedder resolves false, counted', async () => {
    const failing = detectorFor({ embedder: createFakeEmbedder({ embed: () => Promise.reject(new Error('no model')) }) });
    await expect(failing.warmUp()).resolves.toBe(false);
    expect(failing.misses()).toEqual({ embedding: 1 });
    expect(failing.logger.warnings[0]).toContain('while warming up');
    const silent = detectorFor({ embedder: createFakeEmbedder({ embed: () => new Promise<number[]>(() => {}) }) });
    await expect(silent.warmUp({ timeoutMs: 10 })).resolves.toBe(false);
    await expect(detectorFor().warmUp()).resolves.toBe(false);
    await expect(failing.warmUp({ timeoutMs: 0 })).rejects.toThrow('Invalid option `timeoutMs`: received 0. Pass a positive number of milliseconds for the warm-up; the default is 30000.');
  });

  it('counts into a shared miss counter, so the monitor logs each cause once across both', async () => {
    const logger = recordingLogger();
    const shared = createMissCounter(logger);
    shared.record('embedding', 'The classifier’s embedder failed.');
    const detector = detectorFor({ embedder: createFakeEmbedder({ embed: () => Promise.reject(new Error('down')) }), missCounter: shared });
    await observeAll(detector);
    expect(shared.counts()).toEqual({ embedding: 4 });
    expect(detector.misses()).toEqual({ embedding: 4 });
    expect(logger.warnings).toHaveLength(1);
  });

  it('a fault inside the detector itself never escapes: the step goes unchecked, counted as internal', async () => {
    const detector = detectorFor({ embedder: createFakeEmbedder() });
    const hostile = {
      get toolCalls(): never {
        throw new Error('getter exploded');
      },
    };
    await expect(detector.observe('s1', hostile)).resolves.toBeNull();
    expect(detector.observeStructural('s1', hostile)).toBeNull();
    expect(detector.misses()).toEqual({ internal: 2 });
    expect(detector.logger.warnings[0]).toMatch(/^\[panoptes\] The loop detector failed on a step/);
  });
});
