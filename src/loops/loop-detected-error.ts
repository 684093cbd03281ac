import { hasErrorCode, PanoptesError } from '../errors/index.js';
import type { LoopHint, LoopKind, LoopReport } from './types.js';

/**
 * Thrown by hosts configured to throw rather than end a run quietly when a loop reaches `stop` (LangChain and the AI
 * SDK can do either). `modelMessage` is the stop text written for the model; `message` is for developers.
 * Built from the report that reached `stop` (in `afterModel`) or from the pending stop hint (in `beforeModel`).
 */
export class LoopDetectedError extends PanoptesError {
  /** The report whose action was `stop`, when the stop came from one. */
  readonly report?: LoopReport;
  /** Which loop stopped the run. */
  readonly kind: LoopKind;
  readonly loopId: string;
  /** The stop text, written for the model. */
  readonly modelMessage: string;
  /** The session that was stopped. */
  readonly sessionId: string;

  constructor(options: { sessionId: string; cause?: unknown } & ({ report: LoopReport } | { hint: LoopHint })) {
    const loop = 'report' in options ? { ...options.report, text: options.report.hint } : options.hint;
    const detail = 'report' in options ? options.report.message : `${loop.kind} loop reached stop at step ${loop.step}. ${loop.text}`;
    super('LOOP_DETECTED', `Run stopped in session '${options.sessionId}': ${detail}`, { cause: options.cause });
    this.name = 'LoopDetectedError';
    if ('report' in options) this.report = options.report;
    this.kind = loop.kind;
    this.loopId = loop.loopId;
    this.modelMessage = loop.text;
    this.sessionId = options.sessionId;
  }

  static override isInstance(value: unknown): value is LoopDetectedError {
    return hasErrorCode(value, 'LOOP_DETECTED');
  }
}
