import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { backtrackingOf, CATASTROPHIC_HINT } from './regex.js';

/** The variables a guard expression can read. */
export const GUARD_VARIABLES = ['confidence', 'method', 'from', 'to', 'metadata'] as const;

/** What a guard is evaluated against: the classification of the step that proposes the transition. */
export interface GuardInput {
  /** The classification's confidence, in [0, 1]. */
  confidence: number;
  /** Which classifier tier decided the state (`tool_call`, `pattern`, ...). */
  method: string;
  /** The step's metadata; values CEL cannot represent make an expression that reads them false. */
  metadata: Readonly<Record<string, unknown>>;
}

/** A compiled guard expression; never throws, an expression that fails at run time is false. */
export type CompiledExpression = (context: GuardInput & { from: string; to: string }) => boolean;

/** Why an expression was rejected. */
export interface ExpressionProblem {
  code: 'invalid-expression' | 'unsafe-expression';
  message: string;
  hint?: string;
}

/** Longer expressions are almost certainly a mistake or an attack; CEL's own limits bound the parse further. */
export const MAX_EXPRESSION_LENGTH = 2000;

/**
 * CEL is not Turing complete and has no access to the host (no `eval`, `Function`, globals or prototypes), which is
 * why guards use it. The limits bound parse and check cost for hostile input.
 */
const environment = new Environment({ limits: { maxAstNodes: 500, maxDepth: 32, maxListElements: 100, maxMapEntries: 100, maxCallArguments: 8 } })
  .registerVariable('confidence', 'double')
  .registerVariable('method', 'string')
  .registerVariable('from', 'string')
  .registerVariable('to', 'string')
  .registerVariable('metadata', 'map');

const KNOWN_FUNCTIONS = new Set(environment.getDefinitions().functions.map((definition) => definition.name));

/**
 * Parses and type-checks a guard expression once, at load time.
 * @example
 * const { program } = compileExpression('confidence >= 0.8 && has(metadata.order_id)');
 * program?.({ confidence: 0.9, method: 'tool_call', from: 'a', to: 'b', metadata: { order_id: 'x' } }); // true
 */
export function compileExpression(expression: string): { program?: CompiledExpression; problem?: ExpressionProblem } {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return { problem: { code: 'invalid-expression', message: `the expression is ${expression.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}` } };
  }
  let parsed;
  try {
    parsed = environment.parse(expression);
  } catch (error) {
    return { problem: { code: 'invalid-expression', message: `cannot parse ${JSON.stringify(expression)}: ${celMessage(error)}` } };
  }
  const checked = parsed.check();
  if (!checked.valid) {
    if ((checked.error as { code?: string } | undefined)?.code === 'unknown_variable') {
      return {
        problem: {
          code: 'unsafe-expression',
          message: `unknown identifier '${celMessage(checked.error).replace(/^Unknown variable: /, '')}' in ${JSON.stringify(expression)}`,
          hint: `a guard can read only ${GUARD_VARIABLES.join(', ')}`,
        },
      };
    }
    const unsafe = findUnsafeCall(parsed.ast);
    if (unsafe) return { problem: unsafe };
    return { problem: { code: 'invalid-expression', message: `${celMessage(checked.error)} in ${JSON.stringify(expression)}` } };
  }
  const unsafe = findUnsafeCall(parsed.ast);
  if (unsafe) return { problem: unsafe };
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return { problem: { code: 'invalid-expression', message: `${JSON.stringify(expression)} gives a ${checked.type}, not true or false`, hint: 'compare it, e.g. `confidence >= 0.8`' } };
  }
  return {
    program: (context) => {
      try {
        return parsed(context) === true;
      } catch {
        return false; // e.g. a metadata key that is absent: the condition does not hold
      }
    },
  };
}

/**
 * Calls of functions CEL does not define, and `matches()` with a pattern that cannot be checked or can backtrack
 * catastrophically (CEL runs it as a JavaScript regular expression on every evaluation).
 */
function findUnsafeCall(node: ASTNode): ExpressionProblem | undefined {
  if (node.op === 'call' || node.op === 'rcall') {
    const name = node.args[0];
    if (!KNOWN_FUNCTIONS.has(name)) {
      return { code: 'unsafe-expression', message: `'${name}' is not a CEL function`, hint: 'guards may call only CEL standard functions (size, has, startsWith, matches, ...)' };
    }
    if (name === 'matches') {
      const pattern = node.op === 'rcall' ? node.args[2][0] : node.args[1][1];
      const problem = matchesProblem(pattern);
      if (problem) return problem;
    }
  }
  for (const child of children(node)) {
    const problem = findUnsafeCall(child);
    if (problem) return problem;
  }
  return undefined;
}

function matchesProblem(pattern: ASTNode | undefined): ExpressionProblem | undefined {
  if (pattern?.op !== 'value' || typeof pattern.args !== 'string') {
    return { code: 'unsafe-expression', message: 'matches() needs a literal pattern', hint: 'a pattern computed at run time cannot be checked for catastrophic backtracking' };
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern.args);
  } catch (error) {
    return { code: 'invalid-expression', message: `matches() pattern does not compile: ${(error as Error).message}` };
  }
  if (backtrackingOf(regex)?.exponential) {
    return { code: 'unsafe-expression', message: `matches() pattern ${JSON.stringify(pattern.args)} can backtrack catastrophically (exponential time)`, hint: CATASTROPHIC_HINT };
  }
  return undefined;
}

function* children(node: ASTNode): Generator<ASTNode> {
  const stack: unknown[] = [node.args];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (isNode(value)) yield value;
  }
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

/** CEL errors carry a source excerpt over several lines; diagnostics are one line, so keep the summary. */
function celMessage(error: unknown): string {
  const summary = (error as { summary?: unknown } | undefined)?.summary;
  return typeof summary === 'string' ? summary : String((error as Error | undefined)?.message ?? error).split('\n')[0]!;
}
