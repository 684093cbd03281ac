import { warnSafely, type Logger } from '../monitor/fail-open.js';
import type { JudgedOutcome } from './host.js';
import type { RubricScope } from './rubric.js';

/** A judged outcome as a host reports it: where it was judged, and what was decided. */
export interface JudgmentReport {
  scope: RubricScope;
  sessionId?: string;
  /** tool_call scope: the call's tool. */
  tool?: string;
  /** The workflow state the response was judged in (the monitor's rubrics on states). */
  state?: string;
  outcome: JudgedOutcome;
}

/** Receives every judged outcome that did not simply pass (a fail, a warning, an error). */
export type OnJudgment = (report: JudgmentReport) => void;

/**
 * What hosts call with each judged outcome: outcomes that did not simply pass go to `onJudgment` (user code: a throw
 * is caught and logged once), and the first warning of each rubric is logged (a `warn` rubric lets the action go on,
 * so the log is where it shows; later ones reach `onJudgment` only).
 * @example
 * const report = judgmentReporter({ logger: console, onJudgment: (report) => metrics.push(report) });
 * report({ scope: 'tool_call', tool: call.name, sessionId, outcome: await judgeToolCall(judge, input) });
 */
export function judgmentReporter({ logger = console, onJudgment }: { logger?: Logger; onJudgment?: OnJudgment | undefined } = {}): (report: JudgmentReport) => void {
  const warned = new Set<string>();
  let hookFailed = false;
  return (report) => {
    const { outcome } = report;
    if (outcome.reasons.length === 0) return;
    for (const judgment of outcome.judgments) {
      if (judgment.action !== 'warn' || warned.has(judgment.rubric)) continue;
      warned.add(judgment.rubric);
      const reason = outcome.warnings.find((warning) => warning.startsWith(`rubric '${judgment.rubric}'`)) ?? judgment.rubric;
      warnSafely(logger, `[panoptes] judge warns${report.tool ? ` on ${report.tool}` : ''}${report.sessionId ? ` (session ${report.sessionId})` : ''}: ${reason}. The action went on; later warnings of this rubric are not logged.`);
    }
    if (!onJudgment) return;
    try {
      onJudgment(report);
    } catch (error) {
      if (!hookFailed) warnSafely(logger, '[panoptes] onJudgment threw; later failures are not logged.', error);
      hookFailed = true;
    }
  };
}
