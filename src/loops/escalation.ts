import { ACTION_RANK, renderLoopText } from './hints.js';
import type { ResolvedLoopOptions } from './options.js';
import type { LoopAction, LoopFinding, LoopHint, LoopReport } from './types.js';

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
 *.
 * @internal
 */
export function actionFor(detection: number, { strongerHintAt, stopAt }: { strongerHintAt: number; stopAt: number }): LoopAction {
  if (detection >= stopAt) return 'stop';
  if (detection >= strongerHintAt) return 'stronger-hint';
  return 'hint';
}

/**
 * Turns a step's findings into one report: escalates every loop found (each has had one more detection), picks the
 * strongest action (among equals, the first finding: structural before semantic), renders its text and queues it
 * as the session's pending hint unless a stronger one is already waiting.
 * @returns The report, or `null` when there was nothing to report.
 * @internal
 */
export function escalateFindings(
  session: { loops: Map<string, number>; pending: LoopHint | undefined },
  findings: readonly LoopFinding[],
  { escalation, texts }: Pick<ResolvedLoopOptions, 'escalation' | 'texts'>,
  where: { sessionId: string; tenant: string; stepNumber: number },
): LoopReport | null {
  if (findings.length === 0) return null;
  const escalated = findings.map((finding) => {
    const detection = recordDetection(session.loops, finding.loopId);
    return { finding, detection, action: finding.action ?? actionFor(detection, escalation) };
  });
  const primary = escalated.reduce((best, candidate) => (ACTION_RANK[candidate.action] > ACTION_RANK[best.action] ? candidate : best));
  const { finding, detection, action } = primary;
  const hint = renderLoopText(texts[action], finding.detail);
  const { sessionId, tenant, stepNumber } = where;
  const place = tenant === '' ? `session '${sessionId}'` : `session '${sessionId}' of tenant '${tenant}'`;
  const report: LoopReport = {
    ...finding,
    step: stepNumber,
    detection,
    action,
    hint,
    message: `Loop detected in ${place} at step ${stepNumber} (${finding.kind}, detection ${detection}): ${finding.detail}. Suggested action: ${action}.`,
    also: escalated.filter((entry) => entry !== primary).map((entry) => ({ ...entry.finding, detection: entry.detection })),
  };
  if (session.pending === undefined || ACTION_RANK[action] >= ACTION_RANK[session.pending.action]) {
    session.pending = { action, text: hint, kind: finding.kind, loopId: finding.loopId, step: stepNumber };
  }
  return report;
}
