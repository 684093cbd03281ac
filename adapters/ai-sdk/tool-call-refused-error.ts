import { hasErrorCode, PanoptesError, type JudgedToolRefusal, type ToolRefusal } from '../../src/index.js';

/**
 * What a `guardTools` tool throws instead of running a refused call. The AI SDK turns a tool's error into a
 * `tool-error` part, so a refused call shows as failed everywhere the SDK shows tool calls: the model's next request
 * carries an `error-text` result whose text is this error's message (the refusal written for the model), and a
 * `useChat` UI shows the tool part in state `output-error`.
 *
 * The SDK masks error texts in UI message streams (`errorText: 'An error occurred.'`) unless `onError` says
 * otherwise; a refusal's message is meant for the model and the user, so pass it on (and, from the UI messages, to
 * the model on the next turn).
 *
 * Its code is `TOOL_CALL_DENIED`, the code of every refused tool call; `refusal` says who refused (`monitor`,
 * `sentinel` or `judge`) and why. (The
 * LangChain adapter's error of the same name, thrown by its callback handler, carries the workflow's refusal alone.)
 * @example
 * return result.toUIMessageStreamResponse({ onError: (error) => (ToolCallRefusedError.isInstance(error) ? error.message : 'An error occurred.') });
 * // in a step's content
 * if (part.type === 'tool-error' && ToolCallRefusedError.isInstance(part.error)) console.log(part.error.refusal.blockers);
 */
export class ToolCallRefusedError extends PanoptesError {
  /**
   * Who refused (the monitor, the sentinel or the judge), the reason, and the constraints, the sentinel's blockers or
   * the judge's decision (`deny` or `ask`) and rubric reasons.
   */
  readonly refusal: ToolRefusal | JudgedToolRefusal;

  constructor(refusal: ToolRefusal | JudgedToolRefusal) {
    super('TOOL_CALL_DENIED', refusal.reason);
    this.name = 'ToolCallRefusedError';
    this.refusal = refusal;
  }

  /** Narrows by code and by `refusal`, which tells it from the other errors of the same code. */
  static override isInstance(value: unknown): value is ToolCallRefusedError {
    return hasErrorCode(value, 'TOOL_CALL_DENIED') && 'refusal' in value;
  }
}
