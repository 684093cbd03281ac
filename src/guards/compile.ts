import type {
  AskableDeclaration,
  ComparisonOperator,
  CompiledDataDeclaration,
  GuardDeclaration,
  LiteralNode,
  RuleDeclaration,
  Rulebase,
} from '../rules/index.js';
import { formatLiteralNode, isBuiltinPredicate } from '../rules/index.js';
import { compileTerm, VariableNumbering, type RTerm } from './terms.js';

/**
 * A body condition ready to run. `text` is the condition as written, for blockers and derivations; `explain` the
 * author's words for it, as text and the variables to fill in.
 */
export type CLiteral = (
  | { kind: 'rule'; predicate: string; args: readonly RTerm[]; text: string; line: number }
  | {
      kind: 'data';
      predicate: string;
      args: readonly RTerm[];
      declaration: CompiledDataDeclaration;
      /** The tool call's arguments as terms of the clause: what to fetch once they are bound. */
      toolArgs: ReadonlyArray<readonly [string, RTerm]>;
      /** Argument positions that feed the tool call; the others are read from its result. */
      inputs: readonly number[];
      text: string;
      line: number;
    }
  | { kind: 'askable'; predicate: string; args: readonly RTerm[]; declaration: AskableDeclaration; text: string; line: number }
  | { kind: 'builtin'; predicate: string; args: readonly RTerm[]; text: string; line: number }
  | { kind: 'compare'; operator: ComparisonOperator; left: RTerm; right: RTerm; text: string; line: number }
  | { kind: 'member'; element: RTerm; list: RTerm; text: string; line: number }
  | { kind: 'not'; goal: CLiteral; text: string; line: number }
) & { explain?: ReadonlyArray<string | RTerm> };

/**
 * A data tool call whose arguments a clause can know before running its body: the solver starts these fetches
 * together when the clause is entered, so independent tools run concurrently rather than one after another.
 */
export interface PrefetchTemplate {
  declaration: CompiledDataDeclaration;
  /** Tool arguments as terms in the clause's own variables. */
  args: ReadonlyArray<readonly [string, RTerm]>;
}

/** A rule, fact or guard ready to run: head terms, body, variable count and prefetchable data calls. */
export interface CClause {
  head: readonly RTerm[];
  /** Parameter names, for guards: `head[i]` matches the tool argument `params[i]`. */
  params?: readonly string[];
  body: readonly CLiteral[];
  variableCount: number;
  variableNames: readonly string[];
  line: number;
  prefetch: PrefetchTemplate[];
}

/** The rulebase as the solver runs it. */
export interface CompiledRulebase {
  rulebase: Rulebase;
  rules: ReadonlyMap<string, readonly CClause[]>;
  guards: ReadonlyMap<string, readonly CClause[]>;
}

const cache = new WeakMap<Rulebase, CompiledRulebase>();

// How many rule levels the prefetch looks through; deeper calls prefetch when they are entered themselves.
const PREFETCH_DEPTH = 3;

/** Compiles (once per rulebase object) the clauses and prefetch plans the solver uses. */
export function compileRulebase(rulebase: Rulebase): CompiledRulebase {
  const cached = cache.get(rulebase);
  if (cached) return cached;
  const rules = new Map<string, CClause[]>();
  for (const [predicate, declarations] of rulebase.rules) rules.set(predicate, declarations.map((declaration) => compileRule(declaration, rulebase)));
  const guards = new Map<string, CClause[]>();
  for (const [tool, declarations] of rulebase.guards) guards.set(tool, declarations.map((declaration) => compileGuard(declaration, rulebase)));
  const compiled: CompiledRulebase = { rulebase, rules, guards };
  for (const clauses of [...rules.values(), ...guards.values()]) {
    for (const clause of clauses) clause.prefetch = prefetchTemplates(clause, compiled, PREFETCH_DEPTH, new Set());
  }
  cache.set(rulebase, compiled);
  return compiled;
}

/** Compiles a standalone goal (a query) against a rulebase; its variables are numbered in order of appearance. */
export function compileGoal(literals: readonly LiteralNode[], rulebase: Rulebase): CClause {
  const variables = new VariableNumbering();
  const body = literals.map((literal) => compileLiteral(literal, variables, rulebase));
  const clause: CClause = { head: [], body, variableCount: variables.count, variableNames: variables.names, line: 0, prefetch: [] };
  clause.prefetch = prefetchTemplates(clause, compileRulebase(rulebase), PREFETCH_DEPTH, new Set());
  return clause;
}

function compileRule(declaration: RuleDeclaration, rulebase: Rulebase): CClause {
  const variables = new VariableNumbering();
  const head = declaration.args.map((arg) => compileTerm(arg, variables));
  const body = declaration.body.map((literal) => compileLiteral(literal, variables, rulebase));
  return { head, body, variableCount: variables.count, variableNames: variables.names, line: declaration.pos.line, prefetch: [] };
}

function compileGuard(declaration: GuardDeclaration, rulebase: Rulebase): CClause {
  const variables = new VariableNumbering();
  const head = declaration.params.map((param) => compileTerm(param.value, variables));
  const body = declaration.body.map((literal) => compileLiteral(literal, variables, rulebase));
  return {
    head,
    params: declaration.params.map((param) => param.name),
    body,
    variableCount: variables.count,
    variableNames: variables.names,
    line: declaration.pos.line,
    prefetch: [],
  };
}

function compileLiteral(literal: LiteralNode, variables: VariableNumbering, rulebase: Rulebase): CLiteral {
  const compiled = compileCondition(literal, variables, rulebase);
  return literal.explain === undefined ? compiled : { ...compiled, explain: compileExplanation(literal.explain, variables) };
}

/** `"the payment method is {Kind}"` as text pieces and the clause's variable `Kind`, filled in when it is rendered. */
function compileExplanation(text: string, variables: VariableNumbering): Array<string | RTerm> {
  const pieces: Array<string | RTerm> = [];
  let last = 0;
  for (const match of text.matchAll(/\{([A-Z_][A-Za-z0-9_]*)\}/g)) {
    pieces.push(text.slice(last, match.index), compileTerm({ kind: 'var', name: match[1]!, pos: { line: 0, column: 0 } }, variables));
    last = match.index! + match[0].length;
  }
  pieces.push(text.slice(last));
  return pieces;
}

function compileCondition(literal: LiteralNode, variables: VariableNumbering, rulebase: Rulebase): CLiteral {
  const text = formatLiteralNode(literal);
  const line = literal.pos.line;
  switch (literal.kind) {
    case 'call': {
      const args = literal.args.map((arg) => compileTerm(arg, variables));
      const data = rulebase.data.get(literal.predicate);
      if (data) return { kind: 'data', predicate: literal.predicate, args, declaration: data, toolArgs: callArguments(data, args), inputs: inputPositions(data), text, line };
      const askable = rulebase.askables.get(literal.predicate);
      if (askable) return { kind: 'askable', predicate: literal.predicate, args, declaration: askable, text, line };
      if (isBuiltinPredicate(literal.predicate)) return { kind: 'builtin', predicate: literal.predicate, args, text, line };
      return { kind: 'rule', predicate: literal.predicate, args, text, line };
    }
    case 'compare':
      return { kind: 'compare', operator: literal.operator, left: compileTerm(literal.left, variables), right: compileTerm(literal.right, variables), text, line };
    case 'member':
      return { kind: 'member', element: compileTerm(literal.element, variables), list: compileTerm(literal.list, variables), text, line };
    case 'not':
      return { kind: 'not', goal: compileLiteral(literal.goal, variables, rulebase), text, line };
  }
}

/** The predicate argument positions of a data declaration that feed its tool call. */
function inputPositions(declaration: CompiledDataDeclaration): number[] {
  const inputs = new Set(declaration.toolArgs.flatMap((arg) => (arg.value.kind === 'var' ? [arg.value.name] : [])));
  return declaration.params.flatMap((param, index) => (inputs.has(param) ? [index] : []));
}

/** A data condition's tool arguments as terms of the clause: a parameter stands for the condition's argument. */
function callArguments(declaration: CompiledDataDeclaration, args: readonly RTerm[]): Array<readonly [string, RTerm]> {
  return declaration.toolArgs.map(({ name, value }): readonly [string, RTerm] => {
    if (value.kind === 'var') return [name, args[declaration.params.indexOf(value.name)]!];
    if (value.kind === 'context') return [name, { kind: 'context', name: value.name }];
    return [name, { kind: 'constant', value: value.kind === 'constant' ? value.value : null }];
  });
}

/**
 * Data calls reachable from a clause body whose tool arguments depend only on the clause's own variables: direct
 * data conditions, and those of called rules whose head passes the argument straight through.
 */
function prefetchTemplates(clause: CClause, compiled: CompiledRulebase, depth: number, visiting: Set<CClause>): PrefetchTemplate[] {
  const templates: PrefetchTemplate[] = [];
  visiting.add(clause);
  for (const literal of clause.body) {
    if (literal.kind === 'data') {
      const template = dataTemplate(literal.declaration, literal.args);
      if (template) templates.push(template);
    } else if (literal.kind === 'rule' && depth > 0) {
      for (const callee of compiled.rules.get(literal.predicate) ?? []) {
        if (visiting.has(callee)) continue;
        const inner = prefetchTemplates(callee, compiled, depth - 1, visiting);
        for (const template of inner) {
          const mapped = mapThroughHead(template, callee.head, literal.args);
          if (mapped) templates.push(mapped);
        }
      }
    }
  }
  visiting.delete(clause);
  return templates;
}

/** The tool arguments of a data condition, as terms of the calling clause. */
function dataTemplate(declaration: CompiledDataDeclaration, args: readonly RTerm[]): PrefetchTemplate | undefined {
  const toolArgs: Array<readonly [string, RTerm]> = [];
  for (const arg of declaration.toolArgs) {
    if (arg.value.kind === 'var') {
      const position = declaration.params.indexOf(arg.value.name);
      const term = args[position];
      if (term === undefined) return undefined;
      toolArgs.push([arg.name, term]);
    } else if (arg.value.kind === 'constant') {
      toolArgs.push([arg.name, { kind: 'constant', value: arg.value.value }]);
    } else if (arg.value.kind === 'context') {
      toolArgs.push([arg.name, { kind: 'context', name: arg.value.name }]);
    } else {
      return undefined;
    }
  }
  return { declaration, args: toolArgs };
}

/** Rewrites a callee's template into the caller's variables; gives up when it needs a callee body variable. */
function mapThroughHead(template: PrefetchTemplate, head: readonly RTerm[], callArgs: readonly RTerm[]): PrefetchTemplate | undefined {
  const substitute = (term: RTerm): RTerm | undefined => {
    if (term.kind === 'var') {
      const position = head.findIndex((candidate) => candidate.kind === 'var' && candidate.index === term.index);
      return position === -1 ? undefined : callArgs[position];
    }
    if (term.kind === 'list') {
      const items = term.items.map(substitute);
      return items.every((item) => item !== undefined) ? { kind: 'list', items: items as RTerm[] } : undefined;
    }
    if (term.kind === 'object' || term.kind === 'arithmetic') return undefined;
    return term;
  };
  const args: Array<readonly [string, RTerm]> = [];
  for (const [name, term] of template.args) {
    const mapped = substitute(term);
    if (mapped === undefined) return undefined;
    args.push([name, mapped]);
  }
  return { declaration: template.declaration, args };
}
