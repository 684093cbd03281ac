import { ATTR, OPERATION, SPAN } from './names.js';
import { loopAttributes, type LoopReportLike } from './decisions.js';
import type { Telemetry } from './telemetry.js';

interface ObservingDetector<Report extends LoopReportLike> {
  observe(sessionId: string, ...rest: never[]): Promise<Report | null>;
  observeStructural(sessionId: string, ...rest: never[]): Report | null;
}

/**
 * The loop detector with each check timed (`panoptes.loop_check.duration`) and each report counted by kind
 * (`panoptes.loops`) and recorded as a `panoptes.loop` span under the caller's context. Never throws.
 */
export function instrumentLoopDetector<Report extends LoopReportLike, Detector extends ObservingDetector<Report>>(detector: Detector, telemetry: Telemetry): Detector {
  const { observe, observeStructural } = detector;
  const reported = (sessionId: string, report: Report | null, start: number, parent: ReturnType<Telemetry['activeContext']>): void => {
    telemetry.duration('loopCheckDuration', start);
    if (!report) return;
    telemetry.count('loops', { [ATTR.loopKind]: report.kind });
    for (const other of report.also ?? []) telemetry.count('loops', { [ATTR.loopKind]: other.kind });
    const span = telemetry.startSpan(
      `${SPAN.loop} ${report.kind}`,
      { [ATTR.operationName]: OPERATION.loop, [ATTR.conversationId]: sessionId, [ATTR.sessionId]: sessionId, ...loopAttributes(telemetry, report), ...(report.also?.length ? { 'panoptes.loop.also': report.also.map((other) => other.kind) } : {}) },
      performance.timeOrigin + start,
      parent,
    );
    telemetry.end(span);
  };
  // Replaced in place: the detector's getters (sessionCount) stay live.
  Object.assign(detector, {
    observe: ((sessionId: string, ...rest: never[]) => {
      const start = telemetry.now();
      const parent = telemetry.activeContext();
      return observe(sessionId, ...rest).then((report) => {
        reported(sessionId, report, start, parent);
        return report;
      });
    }) as Detector['observe'],
    observeStructural: ((sessionId: string, ...rest: never[]) => {
      const start = telemetry.now();
      const report = observeStructural(sessionId, ...rest);
      reported(sessionId, report, start, telemetry.activeContext());
      return report;
    }) as Detector['observeStructural'],
  });
  return detector;
}
