import { formatFact } from '../facts/index.js';
import type { Value } from '../rules/index.js';
import type { CLiteral } from './compile.js';
import type { Environment, RTerm } from './terms.js';

/**
 * A call with its current values filled in, in rule-language syntax: `cabin("4WQ150", C)`. With `values`, those
 * replace the arguments (`undefined` shows as `_`).
 */
export function renderCall(
  env: Environment,
  literal: { predicate: string; args: readonly RTerm[] },
  base: number,
  values?: ReadonlyArray<Value | undefined>,
): string {
  if (literal.args.length === 0) return literal.predicate;
  const args = literal.args.map((arg, index) => (values ? (values[index] === undefined ? '_' : formatFact('', [values[index]!]).slice(1, -1)) : env.render(arg, base)));
  return `${literal.predicate}(${args.join(', ')})`;
}

/** Any condition with its current values filled in: `H <= 24` becomes `31.5 <= 24`. */
export function renderLiteral(env: Environment, literal: CLiteral, base: number): string {
  switch (literal.kind) {
    case 'compare':
      return `${env.render(literal.left, base)} ${literal.operator} ${env.render(literal.right, base)}`;
    case 'member':
      return `${env.render(literal.element, base)} in ${env.render(literal.list, base)}`;
    case 'not':
      return `not ${renderLiteral(env, literal.goal, base)}`;
    default:
      return renderCall(env, literal, base);
  }
}
