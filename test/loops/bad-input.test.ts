import { describe, expect, it } from 'vitest';
import type { LoopStep } from '../../src/loops/index.js';
import { createFakeEmbedder } from '../../src/testing/index.js';
import { act, call, detectorFor, kinds, runSteps, say, times } from './helpers.js';

describe('bad input', () => {
  it('a step with no text and no tool calls is nothing: not numbered, not embedded, no gap in a monologue', async () => {
    const embedder = createFakeEmbedder();
    const detector = detectorFor({ embedder });
    const reports = [];
    for (const step of [say('Hm.'), {}, { text: '   ' }, { toolCalls: [] }, say('Hm.'), say('Hm.')]) reports.push(await detector.observe('s1', step));
    expect(reports.map((report) => report?.kind ?? '-')).toEqual(['-', '-', '-', '-', '-', 'monologue']);
    expect(reports[5]!.evidence.steps).toEqual([1, 2, 3]);
    expect(embedder.calls).toEqual(['Hm.']);
  });

  it('odd shapes from JavaScript callers read as absent, never a crash', () => {
    const detector = detectorFor();
    const odd = [null, undefined, 42, 'text', { text: 7 }, { toolCalls: 'search' }, { toolCalls: [null, { args: {} }, { name: '' }] }, { toolResults: [null, 5] }];
    for (const step of odd) expect(detector.observeStructural('s1', step as unknown as LoopStep)).toBeNull();
    expect(detector.misses()).toEqual({});
  });

  it('non-JSON arguments (cycles, BigInt, functions, symbols) compare by a stable placeholder', () => {
    const cyclic = () => {
      const args: Record<string, unknown> = { id: 10n, run: () => 1, tag: Symbol('t') };
      args.self = args;
      return args;
    };
    const reports = runSteps(detectorFor(), times(4, () => act('query', cyclic(), 'same')));
    expect(kinds(reports)).toEqual(['-', '-', '-', 'repeated-action']);
    expect(reports[3]!.evidence.calls).toEqual([{ name: 'query', args: '{"id":"[BigInt 10]","self":"[Circular]"}' }]);
    const other = runSteps(detectorFor(), [act('query', { id: 10n }, 'same'), act('query', { id: 10n }, 'same'), act('query', { id: 10n }, 'same'), act('query', { id: 11n }, 'same')]);
    expect(kinds(other)).toEqual(['-', '-', '-', '-']);
  });

  it('arguments that throw when read, revoked proxies and absurd nesting are survived', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { deep };
    const hostile = {
      get secret(): never {
        throw new Error('no');
      },
    };
    const detector = detectorFor();
    for (const args of [{ proxy }, deep, hostile, { list: Array.from({ length: 1_000_000 }, (_, i) => i) }]) {
      expect(detector.observeStructural('s1', { toolCalls: [call('weird', args)] })).toBeNull();
    }
    expect(detector.misses()).toEqual({});
  });

  it('a 10 MB message and a 10 MB tool result cost bounded time', () => {
    const detector = detectorFor();
    const huge = 'lorem ipsum dolor sit amet '.repeat(400_000);
    const started = performance.now();
    detector.observeStructural('s1', say(huge));
    detector.observeStructural('s1', act('download', { url: '/big' }, huge));
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('a session id or tenant that is not a string is read as text', () => {
    const detector = detectorFor();
    const reports = times(3, say('Again.')).map((step) => detector.observeStructural(7 as unknown as string, step, { tenant: 1 as unknown as string }));
    expect(kinds(reports)).toEqual(['-', '-', 'monologue']);
    expect(detector.takePendingHint('7', { tenant: '1' })).toMatchObject({ kind: 'monologue' });
  });
});
