import type { Ring } from './ring.js';
import type { LoopFinding } from './types.js';

/** A step as `alternation` sees it: the hash of its text and calls. @internal */
export interface StepKey {
  key: number;
  step: number;
}

/**
 * `alternation`: the newest `span` steps flip between two different steps, A, B, A, B, ... (text and calls compared,
 * results aside). The two are one loop whichever comes first.
 * @internal
 */
export function findAlternation(steps: Ring<StepKey>, span: number): LoopFinding | null {
  if (steps.length < span) return null;
  const a = steps.fromEnd(0)!.key;
  const b = steps.fromEnd(1)!.key;
  if (a === b) return null;
  for (let back = 2; back < span; back++) {
    if (steps.fromEnd(back)!.key !== (back % 2 === 0 ? a : b)) return null;
  }
  const numbers = Array.from({ length: span }, (_, i) => steps.fromEnd(span - 1 - i)!.step);
  return {
    kind: 'alternation',
    loopId: `alternation:${Math.min(a, b).toString(36)}:${Math.max(a, b).toString(36)}`,
    evidence: { steps: numbers, repetitions: span },
    detail: `you keep switching back and forth between the same two steps (${span} steps so far)`,
  };
}
