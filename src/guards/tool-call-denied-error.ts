import { hasErrorCode, PanoptesError } from '../errors/index.js';
import type { CheckResult } from './result.js';

/**
 * Thrown by `sentinel.assertAllowed` (and by adapters that prefer throwing) when a tool call is not proved allowed.
 * `modelText` is the short text for the model; `message` is for the developer.
 */
export class ToolCallDeniedError extends PanoptesError {
  readonly result: CheckResult;
  readonly modelText: string;

  constructor(result: CheckResult) {
    super('TOOL_CALL_DENIED', result.message);
    this.name = 'ToolCallDeniedError';
    this.result = result;
    this.modelText = result.text;
  }

  static override isInstance(value: unknown): value is ToolCallDeniedError {
    // Adapters refuse with the same code for workflow refusals (no `result`): only a sentinel's refusal is this one.
    return hasErrorCode(value, 'TOOL_CALL_DENIED') && 'result' in value;
  }
}
