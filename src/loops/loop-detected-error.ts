import { hasErrorCode, PanoptesError } from '../errors/index.js';
import type { LoopReport } from './types.js';

/**
 * Thrown by hosts configured to throw rather than end a run quietly when a loop reaches `stop` (LangChain and the AI
 * SDK can do either). `modelMessage` is the stop text written for the model; `message` is for developers.
 */
export class LoopDetectedError extends PanoptesError {
  /** The report whose action was `stop`. */
  readonly report: LoopReport;
  /** The stop text, written for the model. */
  readonly modelMessage: string;
  /** The session that was stopped. */
  readonly sessionId: string;

  constructor({ report, sessionId, cause }: { report: LoopReport; sessionId: string; cause?: unknown }) {
    super('LOOP_DETECTED', `Run stopped in session '${sessionId}': ${report.message}`, { cause });
    this.name = 'LoopDetectedError';
    this.report = report;
    this.modelMessage = report.hint;
    this.sessionId = sessionId;
  }

  static override isInstance(value: unknown): value is LoopDetectedError {
    return hasErrorCode(value, 'LOOP_DETECTED');
  }
}
