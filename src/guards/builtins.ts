import { canonicalJson } from '../facts/index.js';
import type { Value } from '../rules/index.js';

/** Compares two values: numbers as numbers, strings (ISO dates included) in code-point order; `!=` on any values. */
export function compareValues(operator: '!=' | '<' | '<=' | '>' | '>=', left: Value, right: Value): boolean {
  if (operator === '!=') return canonicalJson(left) !== canonicalJson(right);
  // Anything but two numbers or two strings never compares: a rule comparing a date with a number is false, not NaN.
  const comparable = (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  switch (operator) {
    case '<':
      return left < right;
    case '<=':
      return left <= right;
    case '>':
      return left > right;
    case '>=':
      return left >= right;
  }
}

/**
 * Milliseconds of an ISO timestamp, for `hours_since`; one without a zone is read as UTC, like the clock's now.
 * Undefined when the value is not a timestamp.
 */
export function timestampMs(value: Value | symbol | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const time = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(time) ? undefined : time;
}
