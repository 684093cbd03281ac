import type { Diagnostic } from '../diagnostics/index.js';
import { formatPath, type Path } from './path.js';
import type { PositionIndex, SourcePosition } from './positions.js';

/**
 * A diagnostic before it is placed in the source: checks speak in paths, and `locate` turns paths into lines and
 * columns once, so the checks run the same on YAML text and on an already-parsed object.
 */
export interface Finding {
  severity: Diagnostic['severity'];
  code: string;
  message: string;
  path: Path;
  /** Point at the key rather than the value (unknown or conflicting keys). */
  at?: 'key' | 'value';
  hint?: string;
  /** Set when the finding's producer knows the position itself (the YAML parser). */
  position?: SourcePosition;
}

/** Places findings in the source, when positions are known. */
export function locate(findings: readonly Finding[], positions: PositionIndex | undefined, source: string | undefined): Diagnostic[] {
  return findings.map(({ path, at = 'value', position: placed, ...rest }) => {
    const position = placed ?? positions?.find(path, at);
    return {
      ...rest,
      path: formatPath(path),
      ...(source === undefined ? {} : { source }),
      ...(position === undefined ? {} : { line: position.line, column: position.column }),
    };
  });
}

/** Renders a path's location for use inside a message: `line 3, column 5` when known, else the field path. */
export type Where = (path: Path) => string;

/** Builds a `Where` over a position index, falling back to the field path for input without positions. */
export function whereIn(positions: PositionIndex | undefined): Where {
  return (path) => {
    const position = positions?.find(path, 'value');
    return position === undefined ? formatPath(path) : `line ${position.line}, column ${position.column}`;
  };
}

/** A short, single-line rendering of a bad value for a message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  return String(value);
}

/** `a, b, c` capped at `limit` names, so a workflow with hundreds of states keeps its messages short. */
export function listNames(names: readonly string[], limit = 12): string {
  if (names.length <= limit) return names.join(', ');
  return `${names.slice(0, limit).join(', ')}, ... (${names.length - limit} more)`;
}
