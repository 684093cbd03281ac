import { hasErrorCode, PanoptesError } from './panoptes-error.js';

/** Thrown by a factory whose options are invalid, at construction rather than on first use. */
export class InvalidOptionError extends PanoptesError {
  /** The option's name, as the caller spelled it (`threshold`, `historyLimit`). */
  readonly parameter: string;
  /** The value received. */
  readonly value: unknown;

  constructor({ parameter, value, fix, cause }: { parameter: string; value: unknown; fix: string; cause?: unknown }) {
    super('INVALID_OPTION', `Invalid option \`${parameter}\`: received ${describeValue(value)}. ${fix}`, { cause });
    this.name = 'InvalidOptionError';
    this.parameter = parameter;
    this.value = value;
  }

  static override isInstance(value: unknown): value is InvalidOptionError {
    return hasErrorCode(value, 'INVALID_OPTION');
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
