import { hasErrorCode, PanoptesError } from './panoptes-error.js';

/**
 * Thrown when a hard block refuses a model call (a `block:` intervention, a critical violation, or an intervention
 * escalated past its last strategy). `modelMessage` is the text meant for the model; `message` is for developers.
 */
export class WorkflowViolationError extends PanoptesError {
  /** The intervention that blocked, e.g. `verify_first` or `constraint:no_internal`. */
  readonly intervention: string;
  /** The rendered intervention text, written for the model. */
  readonly modelMessage: string;
  /** The session that was blocked, when known. */
  readonly sessionId?: string;

  constructor({ intervention, modelMessage, sessionId, cause }: { intervention: string; modelMessage: string; sessionId?: string; cause?: unknown }) {
    const where = sessionId === undefined ? '' : ` in session '${sessionId}'`;
    super('WORKFLOW_VIOLATION', `Model call blocked by intervention '${intervention}'${where}: ${modelMessage}`, { cause });
    this.name = 'WorkflowViolationError';
    this.intervention = intervention;
    this.modelMessage = modelMessage;
    if (sessionId !== undefined) this.sessionId = sessionId;
  }

  static override isInstance(value: unknown): value is WorkflowViolationError {
    return hasErrorCode(value, 'WORKFLOW_VIOLATION');
  }
}
