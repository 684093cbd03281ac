import { describe, expect, it } from 'vitest';
import { DEFAULT_LOOP_MAX_SESSIONS } from '../../src/loops/index.js';
import { createFakeClock, createFakeEmbedder } from '../../src/testing/index.js';
import { detectorFor, kinds, runSteps, say, times } from './helpers.js';

describe('sessions', () => {
  it('holds 10,000 sessions at once and no more: the least recently used is forgotten', async () => {
    const detector = detectorFor({ embedder: createFakeEmbedder({ dimensions: 32 }) });
    for (let i = 0; i < 12_000; i++) await detector.observe(`session-${i}`, say(`hello from ${i}`));
    expect(DEFAULT_LOOP_MAX_SESSIONS).toBe(10_000);
    expect(detector.sessionCount).toBe(10_000);
    // session-0 was evicted, so its history is gone; session-11999 still has its own.
    expect(kinds(runSteps(detector, times(2, say('hello from 0')), 'session-0'))).toEqual(['-', '-']);
    expect(kinds(runSteps(detector, times(2, say('hello from 11999')), 'session-11999'))).toEqual(['-', 'monologue']);
  });

  it('forgets sessions untouched for ttlMs', () => {
    const clock = createFakeClock();
    const detector = detectorFor({ clock, ttlMs: 1000 });
    runSteps(detector, times(2, say('x')), 'a');
    clock.advance(500);
    runSteps(detector, times(2, say('x')), 'b');
    clock.advance(500);
    expect(detector.sessionCount).toBe(1);
    expect(kinds(runSteps(detector, [say('x')], 'a'))).toEqual(['-']);
    expect(kinds(runSteps(detector, [say('x')], 'b'))).toEqual(['monologue']);
  });

  it('keeps tenants apart: identical session ids in two tenants never add up', () => {
    const detector = detectorFor();
    runSteps(detector, times(2, say('Same text.')), 's1', 'acme');
    expect(kinds(runSteps(detector, times(2, say('Same text.')), 's1', 'globex'))).toEqual(['-', '-']);
    expect(kinds(runSteps(detector, times(2, say('Same text.')), 's1'))).toEqual(['-', '-']);
    expect(kinds(runSteps(detector, [say('Same text.')], 's1', 'acme'))).toEqual(['monologue']);
    expect(detector.takePendingHint('s1', { tenant: 'globex' })).toBeUndefined();
    expect(detector.takePendingHint('s1', { tenant: 'acme' })).toMatchObject({ kind: 'monologue' });
  });

  it('cannot be confused by separators in tenant or session names', () => {
    const detector = detectorFor();
    runSteps(detector, times(2, say('x')), 'b:c', 'a');
    expect(kinds(runSteps(detector, [say('x')], 'c', 'a:b'))).toEqual(['-']);
  });

  it('takePendingHint and resetSession of an unknown session do nothing', () => {
    const detector = detectorFor();
    expect(detector.takePendingHint('nobody')).toBeUndefined();
    detector.resetSession('nobody');
    expect(detector.sessionCount).toBe(0);
  });
});
