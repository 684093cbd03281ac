import { createDidYouMean, type Diagnostic } from '../diagnostics/index.js';
import type { Declaration, LiteralNode, Position, TermNode } from './ast.js';
import { BUILTIN_PREDICATES, isBuiltinPredicate } from './builtins.js';
import { parseJsonPath } from './json-path.js';
import { checkProvenanceDeclaration } from './provenance-check.js';

interface Definition {
  kind: 'data' | 'askable' | 'rule';
  arity: number;
  pos: Position;
}

interface ToolInfo {
  name: string;
  parameters?: { properties?: Record<string, unknown> };
}

/**
 * Load-time checks over parsed declarations. Each problem becomes a diagnostic at the node that causes it, so the
 * message points at the exact line and column a policy author has to change.
 */
export function checkDeclarations(declarations: readonly Declaration[], source: string, tools?: readonly ToolInfo[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report = (severity: Diagnostic['severity'], code: string, pos: Position, path: string, message: string, hint?: string) =>
    diagnostics.push({ severity, code, message, path, source, line: pos.line, column: pos.column, ...(hint ? { hint } : {}) });

  const definitions = collectDefinitions(declarations, report);
  const didYouMean = createDidYouMean(); // a file of thousands of undefined names must not cost their product
  let knownPredicates: string[] | undefined;
  const toolNames = tools?.map((tool) => tool.name);
  const toolsByName = new Map<string, ToolInfo>();
  for (const tool of tools ?? []) if (!toolsByName.has(tool.name)) toolsByName.set(tool.name, tool); // the first, as `find` gave
  const checkTool = (name: string, pos: Position, path: string) => {
    if (toolNames === undefined || toolsByName.has(name)) return;
    report('error', 'unknown-tool', pos, path, `tool '${name}' is not one of the agent's tools`, didYouMean(name, toolNames) || `known tools: ${toolNames.join(', ')}`);
  };

  const parametersOf = (tool: string): string[] | undefined => {
    const properties = toolsByName.get(tool)?.parameters?.properties;
    return properties ? Object.keys(properties) : undefined;
  };
  const checkParameterNames = (tool: string, names: readonly string[], pos: Position, path: string) => {
    const known = parametersOf(tool);
    for (const name of names) {
      if (known && !known.includes(name)) report('error', 'unknown-tool-parameter', pos, path, `tool '${tool}' has no parameter '${name}'`, didYouMean(name, known) || `parameters: ${known.join(', ')}`);
    }
  };
  const checkNamedParameters = (tool: string, params: ReadonlyArray<{ name: string; value: TermNode }>, path: string) => {
    const known = parametersOf(tool);
    const seen = new Set<string>();
    for (const param of params) {
      if (seen.has(param.name)) report('error', 'duplicate-parameter', param.value.pos, path, `parameter '${param.name}' appears twice`);
      seen.add(param.name);
      if (known && !known.includes(param.name)) {
        report('error', 'unknown-tool-parameter', param.value.pos, path, `tool '${tool}' has no parameter '${param.name}'`, didYouMean(param.name, known) || `parameters: ${known.join(', ')}`);
      }
    }
  };
  const dataTools = new Set(declarations.flatMap((declaration) => (declaration.kind === 'data' ? [declaration.tool] : [])));
  const confirmations = new Map(declarations.flatMap((declaration) => (declaration.kind === 'askable' && declaration.confirms ? [[declaration.predicate, declaration.confirms.tool] as const] : [])));
  // A confirmation of one call is proved against the call being guarded: anywhere else there is no call to bind it to.
  const checkConfirmationUses = (body: readonly LiteralNode[], guardedTool: string | undefined, path: string) => {
    const visit = (literal: LiteralNode, negated: boolean) => {
      if (literal.kind === 'not') return visit(literal.goal, true);
      if (literal.kind !== 'call') return;
      const tool = confirmations.get(literal.predicate);
      if (tool === undefined) return;
      const fix = `use ${literal.predicate} directly in a guard of ${tool}, or declare a separate askable without 'for'`;
      if (negated) report('error', 'confirmation-negated', literal.pos, path, `${literal.predicate} confirms a call of ${tool} and cannot be used under 'not'`, fix);
      else if (guardedTool === undefined) report('error', 'confirmation-outside-guard', literal.pos, path, `${literal.predicate} confirms a call of ${tool}; a rule has no call to bind it to`, fix);
      else if (guardedTool !== tool) report('error', 'confirmation-wrong-tool', literal.pos, path, `${literal.predicate} confirms a call of ${tool}, not of ${guardedTool}`, fix);
    };
    for (const literal of body) visit(literal, false);
  };

  const checkCall = (literal: LiteralNode & { kind: 'call' }, path: string) => {
    const builtin = BUILTIN_PREDICATES[literal.predicate];
    const definition = definitions.get(literal.predicate);
    const arity = builtin?.arity ?? definition?.arity;
    if (arity === undefined) {
      const known = (knownPredicates ??= [...definitions.keys(), ...Object.keys(BUILTIN_PREDICATES)]);
      report('error', 'undefined-predicate', literal.pos, path, `predicate '${literal.predicate}' is not defined by any rule, data or askable declaration`, didYouMean(literal.predicate, known) || undefined);
    } else if (arity !== literal.args.length) {
      report('error', 'arity-mismatch', literal.pos, path, `'${literal.predicate}' takes ${arity} argument${arity === 1 ? '' : 's'}, called with ${literal.args.length}`);
    }
  };

  for (const declaration of declarations) {
    switch (declaration.kind) {
      case 'data':
        checkTool(declaration.tool, declaration.pos, `data ${declaration.predicate}`);
        checkData(declaration, report);
        break;
      case 'askable':
        checkAskable(declaration, report);
        checkGroundedQuestion(declaration, report);
        if (declaration.confirms) {
          const path = `askable ${declaration.predicate}`;
          checkTool(declaration.confirms.tool, declaration.confirms.pos, path);
          checkParameterNames(declaration.confirms.tool, declaration.confirms.params ?? [], declaration.confirms.pos, path);
        }
        break;
      case 'given':
      case 'strict': {
        const path = `${declaration.kind} ${declaration.tool}`;
        checkTool(declaration.tool, declaration.pos, path);
        checkParameterNames(declaration.tool, declaration.params, declaration.pos, path);
        break;
      }
      case 'write': {
        const path = `write ${declaration.tool}`;
        checkTool(declaration.tool, declaration.pos, path);
        checkNamedParameters(declaration.tool, declaration.params, path);
        const bound = new Set(declaration.params.flatMap((param) => termVariables(param.value).map((variable) => variable.name)));
        for (const target of declaration.invalidates) {
          checkTool(target.tool, target.pos, path);
          if (!dataTools.has(target.tool)) {
            report('error', 'write-target-not-data', target.pos, path, `'${target.tool}' is not read by any data declaration, so no fact comes from it to invalidate`, dataTools.size > 0 ? `data tools: ${[...dataTools].join(', ')}` : 'declare data predicates first');
          }
          for (const arg of target.args) {
            for (const variable of termVariables(arg.value)) {
              if (!bound.has(variable.name)) report('error', 'unbound-variable', variable.pos, path, `variable ${variable.name} is not a parameter of ${declaration.tool}`, `name it in ${declaration.tool}(param: ${variable.name}), or write a context name or a constant`);
            }
          }
        }
        break;
      }
      case 'source':
      case 'sink':
        checkProvenanceDeclaration(declaration, { checkTool, checkParameterNames, report });
        break;
      case 'rule':
        checkClause(declaration.predicate, declaration.args, new Set(), declaration.body, `rule ${declaration.predicate}`, report, checkCall);
        checkConfirmationUses(declaration.body, undefined, `rule ${declaration.predicate}`);
        break;
      case 'guard': {
        const path = `guard ${declaration.tool}`;
        checkTool(declaration.tool, declaration.pos, path);
        checkNamedParameters(declaration.tool, declaration.params, path);
        checkConfirmationUses(declaration.body, declaration.tool, path);
        const bound = new Set(declaration.params.flatMap((param) => termVariables(param.value).map((variable) => variable.name)));
        checkClause(undefined, declaration.params.map((param) => param.value), bound, declaration.body, path, report, checkCall);
        break;
      }
      case 'requires':
        checkRequirement(declaration, declarations, report, checkTool, checkCall);
        break;
      default:
        break;
    }
  }
  return diagnostics;
}

/**
 * `requires Goal before tool.`: the tool must be one of the agent's tools and have a guard to add the condition to,
 * and the condition must be ground (no variables: it is checked the same for every call).
 */
function checkRequirement(
  declaration: Declaration & { kind: 'requires' },
  declarations: readonly Declaration[],
  report: Report,
  checkTool: (tool: string, pos: Position, path: string) => void,
  checkCall: (literal: LiteralNode & { kind: 'call' }, path: string) => void,
): void {
  const path = `requires ${declaration.tool}`;
  checkTool(declaration.tool, declaration.pos, path);
  if (!declarations.some((other) => other.kind === 'guard' && other.tool === declaration.tool)) {
    report('error', 'requires-without-guard', declaration.pos, path, `${declaration.tool} has no guard to add the requirement to`, `add a guard, e.g. guard ${declaration.tool}.`);
  }
  checkClause(undefined, [], new Set(), [declaration.goal], path, report, checkCall);
}

type Report = (severity: Diagnostic['severity'], code: string, pos: Position, path: string, message: string, hint?: string) => void;

function collectDefinitions(declarations: readonly Declaration[], report: Report): Map<string, Definition> {
  const definitions = new Map<string, Definition>();
  const contexts = new Map<string, Position>();
  for (const declaration of declarations) {
    if (declaration.kind === 'context') {
      if (contexts.has(declaration.name)) {
        const first = contexts.get(declaration.name)!;
        report('error', 'duplicate-context', declaration.pos, `context ${declaration.name}`, `context '${declaration.name}' is already declared at line ${first.line}`);
      }
      contexts.set(declaration.name, declaration.pos);
      continue;
    }
    if (declaration.kind === 'guard' || declaration.kind === 'write' || declaration.kind === 'given' || declaration.kind === 'strict' || declaration.kind === 'source' || declaration.kind === 'sink' || declaration.kind === 'requires') continue;
    const name = declaration.predicate;
    const arity = declaration.kind === 'rule' ? declaration.args.length : declaration.params.length;
    const path = `${declaration.kind} ${name}`;
    if (isBuiltinPredicate(name)) {
      report('error', 'builtin-redefined', declaration.pos, path, `'${name}' is a built-in predicate and cannot be redefined`);
      continue;
    }
    const existing = definitions.get(name);
    if (existing === undefined) {
      definitions.set(name, { kind: declaration.kind, arity, pos: declaration.pos });
      continue;
    }
    if (existing.kind !== declaration.kind || declaration.kind !== 'rule') {
      report('error', 'duplicate-definition', declaration.pos, path, `'${name}' is already defined as ${existing.kind} at line ${existing.pos.line}`, 'a predicate comes from exactly one of: rules, one data declaration, one askable');
    } else if (existing.arity !== arity) {
      report('error', 'arity-mismatch', declaration.pos, path, `'${name}' has ${existing.arity} argument${existing.arity === 1 ? '' : 's'} at line ${existing.pos.line} but ${arity} here`);
    }
  }
  return definitions;
}

function checkData(declaration: Declaration & { kind: 'data' }, report: Report): void {
  const path = `data ${declaration.predicate}`;
  const params = new Set(declaration.params);
  const inputs = new Set<string>();
  for (const arg of declaration.toolArgs) {
    for (const variable of termVariables(arg.value)) {
      if (!params.has(variable.name)) report('error', 'unbound-variable', variable.pos, path, `variable ${variable.name} in the tool's arguments is not a parameter of ${declaration.predicate}`);
      inputs.add(variable.name);
    }
  }
  const outputs = new Set<string>();
  for (const output of declaration.outputs) {
    if (!params.has(output.variable)) report('error', 'unbound-variable', output.pos, path, `output ${output.variable} is not a parameter of ${declaration.predicate}`);
    if (outputs.has(output.variable)) report('error', 'duplicate-output', output.pos, path, `output ${output.variable} is extracted twice`);
    outputs.add(output.variable);
    const parsed = parseJsonPath(output.path);
    if ('error' in parsed) report('error', 'json-path', output.pos, path, `bad JSON path ${output.path}: ${parsed.error}`);
  }
  for (const param of declaration.params) {
    if (!inputs.has(param) && !outputs.has(param)) {
      report('error', 'unbound-head-variable', declaration.pos, path, `parameter ${param} is neither a tool argument nor extracted from the result`);
    }
  }
}

function checkAskable(declaration: Declaration & { kind: 'askable' }, report: Report): void {
  for (const match of declaration.question.matchAll(/\{([^}]*)\}/g)) {
    if (match[1] === 'call' && declaration.confirms) continue; // the exact call being confirmed
    if (!declaration.params.includes(match[1]!)) {
      report('error', 'unknown-placeholder', declaration.pos, `askable ${declaration.predicate}`, `the question uses {${match[1]}}, which is not a parameter`, `parameters: ${declaration.params.join(', ') || 'none'}${declaration.confirms ? ', and {call}' : ''}`);
    }
  }
}

/**
 * A grounded confirmation (`askable ... for tool(param, ...)`) counts a yes only to a message that stated the named
 * arguments; a question without `{call}` does not state them, so the agent relaying it word for word gets no yes that
 * counts.
 */
function checkGroundedQuestion(declaration: Declaration & { kind: 'askable' }, report: Report): void {
  // A placeholder shows values too (`Cancel {R}?` for a call that names only the reservation): only a question that
  // shows nothing at all is flagged.
  if (declaration.confirms?.params === undefined || /\{[^}]*\}/.test(declaration.question)) return;
  report(
    'warning',
    'grounded-question-without-call',
    declaration.pos,
    `askable ${declaration.predicate}`,
    `the question shows no value of the call, so a yes to it does not state ${declaration.confirms.params.join(', ')}`,
    'put {call} in the question, so the user sees the values they confirm',
  );
}

/**
 * Range restriction and safety, left to right: a comparison, a negation and the list of a membership need their
 * variables bound by the head or an earlier positive condition; every head variable of a rule must occur in the body.
 */
function checkClause(
  predicate: string | undefined,
  head: readonly TermNode[],
  initiallyBound: Set<string>,
  body: readonly LiteralNode[],
  path: string,
  report: Report,
  checkCall: (literal: LiteralNode & { kind: 'call' }, path: string) => void,
): void {
  const headVariables = head.flatMap(termVariables);
  // Head variables of a rule are treated as bound for safety: rules are usually called with their inputs known, and a
  // call that leaves one unbound is reported at run time. The body must still mention each one (checked below).
  const bound = new Set([...initiallyBound, ...headVariables.map((variable) => variable.name)]);
  const mentioned = new Set<string>();
  const occurrences = new Map<string, { count: number; pos: Position }>();
  const count = (variables: Array<{ name: string; pos: Position }>) => {
    for (const variable of variables) {
      const entry = occurrences.get(variable.name);
      occurrences.set(variable.name, { count: (entry?.count ?? 0) + 1, pos: entry?.pos ?? variable.pos });
    }
  };
  count(predicate === undefined ? [] : headVariables);
  const requireBound = (variables: Array<{ name: string; pos: Position }>, code: string, what: string) => {
    for (const variable of variables) {
      if (!bound.has(variable.name)) report('error', code, variable.pos, path, `variable ${variable.name} is not bound before ${what}`, 'bind it in an earlier condition of the body or in the head');
    }
  };
  const visit = (literal: LiteralNode, negated: boolean) => {
    const variables = literalVariables(literal);
    count(variables);
    for (const variable of variables) mentioned.add(variable.name);
    switch (literal.kind) {
      case 'call': {
        checkCall(literal, path);
        const builtin = BUILTIN_PREDICATES[literal.predicate];
        if (builtin) requireBound(builtin.inputs.flatMap((index) => (literal.args[index] ? termVariables(literal.args[index]) : [])), 'unsafe-builtin', `${literal.predicate} reads it`);
        if (!negated) for (const variable of variables) bound.add(variable.name);
        break;
      }
      case 'compare':
        if (literal.operator === '=') {
          requireBound([...arithmeticVariables(literal.left), ...arithmeticVariables(literal.right)], 'unsafe-arithmetic', 'arithmetic uses it');
          if (!negated) for (const variable of variables) bound.add(variable.name);
        } else {
          requireBound(variables, 'unsafe-comparison', `the comparison ${literal.operator} reads it`);
        }
        break;
      case 'member':
        requireBound(termVariables(literal.list), 'unsafe-membership', '`in` reads the list');
        if (!negated) for (const variable of termVariables(literal.element)) bound.add(variable.name);
        break;
      case 'not': {
        const inner = literalVariables(literal.goal).filter((variable) => !bound.has(variable.name));
        for (const variable of inner) {
          report('error', 'unsafe-negation', variable.pos, path, `variable ${variable.name} is not bound before 'not'`, 'negation is only checked on ground goals; bind the variable in an earlier condition');
        }
        // Report the inner goal's own problems (undefined predicate, arity) without counting its variables twice.
        if (literal.goal.kind === 'call') checkCall(literal.goal, path);
        else if (literal.goal.kind === 'not') visit(literal.goal.goal, true);
        break;
      }
    }
  };
  for (const literal of body) visit(literal, false);

  if (predicate !== undefined) {
    for (const variable of headVariables) {
      if (!mentioned.has(variable.name)) {
        report('error', 'unbound-head-variable', variable.pos, path, `head variable ${variable.name} does not occur in the body, so nothing binds it`, body.length === 0 ? 'facts hold only constants' : undefined);
      }
    }
  }
  for (const [name, entry] of occurrences) {
    if (entry.count === 1 && !name.startsWith('_') && !initiallyBound.has(name)) {
      report('warning', 'singleton-variable', entry.pos, path, `variable ${name} is used only once`, `a typo? write _${name} if it is meant to match anything`);
    }
  }
}

/** Named variables of a term, in order, with positions; `_` is anonymous and never reported. */
export function termVariables(term: TermNode): Array<{ name: string; pos: Position }> {
  switch (term.kind) {
    case 'var':
      return term.name === '_' ? [] : [{ name: term.name, pos: term.pos }];
    case 'list':
      return term.items.flatMap(termVariables);
    case 'object':
      return term.entries.flatMap((entry) => termVariables(entry.value));
    case 'arithmetic':
      return [...termVariables(term.left), ...termVariables(term.right)];
    default:
      return [];
  }
}

function arithmeticVariables(term: TermNode): Array<{ name: string; pos: Position }> {
  return term.kind === 'arithmetic' ? termVariables(term) : [];
}

function literalVariables(literal: LiteralNode): Array<{ name: string; pos: Position }> {
  switch (literal.kind) {
    case 'call':
      return literal.args.flatMap(termVariables);
    case 'compare':
      return [...termVariables(literal.left), ...termVariables(literal.right)];
    case 'member':
      return [...termVariables(literal.element), ...termVariables(literal.list)];
    case 'not':
      return literalVariables(literal.goal);
  }
}
