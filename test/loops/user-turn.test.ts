import { describe, expect, it } from 'vitest';
import { createFakeEmbedder } from '../../src/testing/index.js';
import { act, detectorFor, kinds, runSteps, times } from './helpers.js';

/** Issue 15: a new user message starts a fresh count for the structural checks. */
describe('scope by user turn', () => {
  const same = act('search', { q: 'x' }, 'same');

  it('a new user turn restarts the counts: 3 identical calls, a user message, 3 more is no loop', () => {
    const steps = [...times(3, same), { userTurn: true }, ...times(3, same)];
    expect(kinds(runSteps(detectorFor(), steps)).every((kind) => kind === '-')).toBe(true);
    expect(kinds(runSteps(detectorFor(), [...times(3, same), ...times(3, same)])).at(3)).toBe('repeated-action');
  });

  it('restarts escalation, and drops a pending stop but not a pending hint', () => {
    const detector = detectorFor({ toolCycle: false });
    expect(runSteps(detector, times(6, same)).at(-1)?.action).toBe('stop');
    runSteps(detector, [{ userTurn: true }]);
    expect(detector.peekPendingHint('s1')).toBeUndefined();
    expect(runSteps(detector, times(4, same)).at(-1)?.action).toBe('hint');
    runSteps(detector, [{ userTurn: true }]);
    expect(detector.peekPendingHint('s1')?.action).toBe('hint');
  });

  it('with scopeToUserTurn: false, the count runs across user turns', () => {
    const steps = [...times(3, same), { userTurn: true }, same];
    expect(kinds(runSteps(detectorFor({ scopeToUserTurn: false }), steps)).at(-1)).toBe('repeated-action');
  });

  it('keeps the semantic window: a step like one from the last turn is still found', async () => {
    const detector = detectorFor({ embedder: createFakeEmbedder({ vectors: { 'Your booking is confirmed.': [1, 0], 'The booking is confirmed.': [0.99, 0.14] } }) });
    await detector.observe('s1', { text: 'Your booking is confirmed.' });
    await detector.observe('s1', { userTurn: true });
    const report = await detector.observe('s1', { text: 'The booking is confirmed.' });
    expect(report?.kind).toBe('semantic');
  });
});
