import { excerpt } from './hints.js';
import type { LoopFinding } from './types.js';

/** A session's current run of identical text-only steps. @internal */
export interface MonologueState {
  key: number;
  /** Steps of the run, oldest first, at most `threshold` kept. */
  steps: number[];
  count: number;
}

/** @internal */
export function initialMonologue(): MonologueState {
  return { key: 0, steps: [], count: 0 };
}

/** Something happened between two texts (a tool call, an exempt poll): the run starts again. @internal */
export function breakMonologue(state: MonologueState): void {
  state.key = 0;
  state.steps = [];
  state.count = 0;
}

/**
 * `monologue`: `threshold` text-only steps in a row with the same text (whitespace and volatile values aside) and
 * nothing in between. Kept as a running count, so checking costs the same however long the session.
 * @internal
 */
export function observeMonologue(state: MonologueState, step: { textKey: number; text: string }, stepNumber: number, threshold: number): LoopFinding | null {
  if (step.textKey === state.key && state.count > 0) {
    state.count++;
  } else {
    state.key = step.textKey;
    state.count = 1;
    state.steps = [];
  }
  state.steps.push(stepNumber);
  if (state.steps.length > threshold) state.steps.shift();
  if (state.count < threshold) return null;
  return {
    kind: 'monologue',
    loopId: `monologue:${state.key.toString(36)}`,
    evidence: { steps: [...state.steps], repetitions: state.count, text: excerpt(step.text) },
    detail: `you wrote the same message ${state.count} times in a row without doing anything in between`,
  };
}
