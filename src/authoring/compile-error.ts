import type { Diagnostic } from '../diagnostics/index.js';
import { formatDiagnostic } from '../diagnostics/index.js';
import { hasErrorCode, PanoptesError } from '../errors/index.js';
import type { CompileRound } from './repair.js';

/**
 * Thrown when the compiler gives up: the model's draft was still invalid after the last repair round (then
 * `diagnostics` holds that round's errors), or the model call itself failed or timed out (then `cause` says why).
 * `rounds` holds every round's diagnostics and usage, and `text` the last draft, so nothing the model wrote is lost.
 */
export class CompileError extends PanoptesError {
  readonly diagnostics: readonly Diagnostic[];
  readonly rounds: readonly CompileRound[];
  /** The last draft as text (YAML or rules), when the model produced one. */
  readonly text?: string;

  constructor(message: string, { diagnostics = [], rounds, text, cause }: { diagnostics?: readonly Diagnostic[]; rounds: readonly CompileRound[]; text?: string; cause?: unknown }) {
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    super('COMPILE_FAILED', errors.length === 0 ? message : `${message}:\n${errors.map((diagnostic) => `  ${formatDiagnostic(diagnostic)}`).join('\n')}`, { cause });
    this.name = 'CompileError';
    this.diagnostics = diagnostics;
    this.rounds = rounds;
    if (text !== undefined) this.text = text;
  }

  static override isInstance(value: unknown): value is CompileError {
    return hasErrorCode(value, 'COMPILE_FAILED');
  }
}
