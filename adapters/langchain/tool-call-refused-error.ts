import { hasErrorCode, PanoptesError } from '../../src/index.js';

/**
 * Thrown by `PanoptesCallbackHandler` (with `raiseError: true`) when the monitor refuses a tool call before it runs:
 * entering the call's workflow state would violate a critical constraint. The message is the refusal written for
 * the model, because hosts such as `createAgent`'s tool node hand a tool's error text back to the model.
 *
 * Inside `createAgent`, the refused call reaches the model as an error `ToolMessage` (status `error`) that starts with
 * this text.
 *
 * Its code is `TOOL_CALL_DENIED`, the code of every refused tool call. The core's `ToolCallDeniedError` (a sentinel's
 * refusal) does not fit here: it carries the rules' `CheckResult`, and a workflow refusal has none.
 * @example
 * try {
 *   await issueRefund.invoke(toolCall, { callbacks: [new PanoptesCallbackHandler({ monitor, raiseError: true })] });
 * } catch (error) {
 *   if (ToolCallRefusedError.isInstance(error)) console.log(error.toolName, error.constraints);
 * }
 */
export class ToolCallRefusedError extends PanoptesError {
  readonly toolName: string;
  /** The critical constraints the call would have violated. */
  readonly constraints: string[];
  /** The session whose workflow refused the call. */
  readonly sessionId: string;

  constructor({ toolName, reason, constraints, sessionId }: { toolName: string; reason: string; constraints: string[]; sessionId: string }) {
    super('TOOL_CALL_DENIED', reason);
    this.name = 'ToolCallRefusedError';
    this.toolName = toolName;
    this.constraints = constraints;
    this.sessionId = sessionId;
  }

  /**
   * The refusal alone. `createAgent`'s tool node writes a tool's error into the error `ToolMessage` as `${error}`
   * (then a line of its own), so the model reads the refusal as written rather than behind the error's name.
   */
  override toString(): string {
    return this.message;
  }

  /** Narrows by code and by `toolName`, which tells it from the core's `ToolCallDeniedError` of the same code. */
  static override isInstance(value: unknown): value is ToolCallRefusedError {
    return hasErrorCode(value, 'TOOL_CALL_DENIED') && 'toolName' in value;
  }
}
