import type { LoopAction } from './types.js';

/** Loops whose detections a session remembers; past it the least recently detected is forgotten. */
const REMEMBERED_LOOPS = 64;

/**
 * Counts one more detection of `loopId` in a session and returns its number (1 for the first). The count survives
 * the loop going quiet: an agent that falls back into the same loop later has already had its hint.
 * @internal
 */
export function recordDetection(counts: Map<string, number>, loopId: string): number {
  const detection = (counts.get(loopId) ?? 0) + 1;
  counts.delete(loopId);
  counts.set(loopId, detection);
  if (counts.size > REMEMBERED_LOOPS) counts.delete(counts.keys().next().value!);
  return detection;
}

/**
 * What the `detection`-th detection of one loop calls for: a hint, then a stronger hint, then the end of the run
 * (DESIGN.md section 8: nudge first, stop only when nudging failed).
 * @internal
 */
export function actionFor(detection: number, { strongerHintAt, stopAt }: { strongerHintAt: number; stopAt: number }): LoopAction {
  if (detection >= stopAt) return 'stop';
  if (detection >= strongerHintAt) return 'stronger-hint';
  return 'hint';
}
