import type { Diagnostic } from '../diagnostics/index.js';
import { RulebaseError } from '../errors/index.js';
import { assertMaxBytes, DEFAULT_MAX_BYTES, inputTooLarge, type InputTooLarge } from '../limits/index.js';
import type {
  AskableDeclaration,
  ContextDeclaration,
  DataDeclaration,
  Declaration,
  GuardDeclaration,
  LiteralNode,
  RequiresDeclaration,
  RuleDeclaration,
  SinkDeclaration,
  SourceDeclaration,
  TermNode,
  WriteDeclaration,
} from './ast.js';
import { checkDeclarations } from './check.js';
import { parseJsonPath, type PathSegment } from './json-path.js';
import { parseDeclarations } from './parser.js';

/** A tool the rulebase may name: just its name, or its name and JSON-schema parameters (checked against guards). */
export type ToolSpec = string | { name: string; parameters?: { properties?: Record<string, unknown> } };

/** Options of {@link parseRulebase}. */
export interface ParseRulebaseOptions {
  /** File name or label used in diagnostics. @default '<rulebase>' */
  source?: string;
  /**
   * The tools the agent has. When given, guards and data declarations that name any other tool are errors, and
   * guard parameters are checked against each tool's JSON schema when it has one.
   */
  tools?: Iterable<ToolSpec>;
  /** Larger text is refused before it is parsed, as a workflow is. @default 1048576 (1 MiB) */
  maxBytes?: number;
}

/** A data declaration with its JSON paths parsed once at load time. */
export interface CompiledDataDeclaration extends DataDeclaration {
  paths: PathSegment[][];
}

/** A parsed and checked rulebase, indexed for the solver. Immutable once built. */
export interface Rulebase {
  source: string;
  declarations: readonly Declaration[];
  contexts: ReadonlyMap<string, ContextDeclaration>;
  /** Data declarations by predicate. */
  data: ReadonlyMap<string, CompiledDataDeclaration>;
  /** Data declarations by the tool they call, so one fetch can fill every predicate that tool backs. */
  dataByTool: ReadonlyMap<string, readonly CompiledDataDeclaration[]>;
  askables: ReadonlyMap<string, AskableDeclaration>;
  /** Rules (and facts) by head predicate, in file order: the solver tries them in that order. */
  rules: ReadonlyMap<string, readonly RuleDeclaration[]>;
  /** Guards by tool; several guards for one tool are alternatives. */
  guards: ReadonlyMap<string, readonly GuardDeclaration[]>;
  /** Write declarations by tool: the data tool calls a successful call of the tool makes stale. */
  writes: ReadonlyMap<string, readonly WriteDeclaration[]>;
  /** Parameters whose values the user gives (`given tool(param, ...)`), by tool. */
  given: ReadonlyMap<string, ReadonlySet<string>>;
  /** Parameters strict mode checks even on a data tool or a tool every call of which is allowed (`strict tool(param, ...)`), by tool. */
  strict: ReadonlyMap<string, ReadonlySet<string>>;
  /** `source` declarations in file order: the trust of each tool's results (see `trustOfResult`). */
  sources: readonly SourceDeclaration[];
  /** `sink` declarations by tool. */
  sinks: ReadonlyMap<string, readonly SinkDeclaration[]>;
  /** Askables that confirm one call (`askable ... for tool`), by the tool they confirm. */
  confirmationsByTool: ReadonlyMap<string, readonly AskableDeclaration[]>;
  /** Warnings found at load time (errors make loading throw). */
  warnings: readonly Diagnostic[];
}

/**
 * Parses and checks rulebase text. Throws a {@link RulebaseError} listing every error with file, line and column:
 * syntax errors, undefined predicates, arity mismatches, head variables the body never binds, unsafe negation and
 * comparisons, bad JSON paths, guards for tools that do not exist.
 * @param text The rulebase source.
 * @param options Source label for diagnostics, and the agent's tools when known.
 * @throws RulebaseError when any error is found, or the text is over `maxBytes`.
 * @throws {InvalidOptionError} for a `maxBytes` that is not a positive number.
 * @example
 * const rulebase = parseRulebase(`
 *   context booking_of_interest
 *   data booking_status(B, S) from get_booking(booking_id: B) -> S = $.status ttl 60s
 *   guard cancel_booking(booking_id: B) :- B = booking_of_interest, booking_status(B, active).
 * `, { source: 'policy.rules', tools: ['get_booking', 'cancel_booking'] });
 */
export function parseRulebase(text: string, options: ParseRulebaseOptions = {}): Rulebase {
  const { rulebase, diagnostics } = analyzeRulebase(text, options);
  if (rulebase === undefined) throw new RulebaseError(diagnostics);
  return rulebase;
}

/**
 * Like {@link parseRulebase} but never throws: returns every diagnostic, and the rulebase when there were no errors.
 * This is what `panoptes rules check` reports.
 * @throws {InvalidOptionError} only for a `maxBytes` that is not a positive number.
 */
export function analyzeRulebase(text: string, { source = '<rulebase>', tools, maxBytes = DEFAULT_MAX_BYTES }: ParseRulebaseOptions = {}): { rulebase?: Rulebase; diagnostics: Diagnostic[] } {
  assertMaxBytes(maxBytes);
  const tooLarge = inputTooLarge(text, maxBytes, 'rulebase');
  if (tooLarge) return { diagnostics: [tooLargeDiagnostic(tooLarge, source)] };
  const parsed = parseDeclarations(text, source);
  const declarations = resolveContexts(parsed.declarations);
  const toolSpecs = tools === undefined ? undefined : [...tools].map((tool) => (typeof tool === 'string' ? { name: tool } : tool));
  const found = [...parsed.diagnostics, ...checkDeclarations(declarations, source, toolSpecs)];
  // A variable reported as an error need not also be reported as a likely typo at the same spot.
  const errorAt = new Set(found.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.column}`));
  const diagnostics = found.filter((d) => d.severity === 'error' || !errorAt.has(`${d.line}:${d.column}`));
  diagnostics.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  if (diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return { diagnostics };
  return { rulebase: indexRulebase(declarations, source, diagnostics), diagnostics };
}

/** The diagnostic for a rulebase over `maxBytes`: no line, since none of it was read. */
export function tooLargeDiagnostic({ message, hint }: InputTooLarge, source: string): Diagnostic {
  return { severity: 'error', code: 'input-too-large', message, hint, path: '', source };
}

function indexRulebase(declarations: Declaration[], source: string, warnings: Diagnostic[]): Rulebase {
  const contexts = new Map<string, ContextDeclaration>();
  const data = new Map<string, CompiledDataDeclaration>();
  const dataByTool = new Map<string, CompiledDataDeclaration[]>();
  const askables = new Map<string, AskableDeclaration>();
  const rules = new Map<string, RuleDeclaration[]>();
  const guards = new Map<string, GuardDeclaration[]>();
  const writes = new Map<string, WriteDeclaration[]>();
  const confirmationsByTool = new Map<string, AskableDeclaration[]>();
  const given = new Map<string, Set<string>>();
  const strict = new Map<string, Set<string>>();
  const sources: SourceDeclaration[] = [];
  const sinks = new Map<string, SinkDeclaration[]>();
  const requires: RequiresDeclaration[] = [];
  for (const declaration of declarations) {
    switch (declaration.kind) {
      case 'context':
        contexts.set(declaration.name, declaration);
        break;
      case 'data': {
        // The checker has already rejected bad paths, so every parse here succeeds.
        const paths = declaration.outputs.map((output) => {
          const parsed = parseJsonPath(output.path);
          return 'segments' in parsed ? parsed.segments : [];
        });
        const compiled = { ...declaration, paths };
        data.set(declaration.predicate, compiled);
        append(dataByTool, declaration.tool, compiled);
        break;
      }
      case 'askable':
        askables.set(declaration.predicate, declaration);
        if (declaration.confirms) append(confirmationsByTool, declaration.confirms.tool, declaration);
        break;
      case 'rule':
        append(rules, declaration.predicate, declaration);
        break;
      case 'guard':
        append(guards, declaration.tool, declaration);
        break;
      case 'write':
        append(writes, declaration.tool, declaration);
        break;
      case 'source':
        sources.push(declaration);
        break;
      case 'sink':
        append(sinks, declaration.tool, declaration);
        break;
      case 'requires':
        requires.push(declaration);
        break;
      case 'given':
      case 'strict': {
        const byTool = declaration.kind === 'given' ? given : strict;
        const names = byTool.get(declaration.tool) ?? new Set<string>();
        for (const name of declaration.params) names.add(name);
        byTool.set(declaration.tool, names);
        break;
      }
    }
  }
  addRequirements(guards, requires);
  return { source, declarations, contexts, data, dataByTool, askables, rules, guards, writes, given, strict, sources, sinks, confirmationsByTool, warnings };
}

/** Each `requires ... before tool` becomes the first condition of every guard of that tool (a duty is checked first). */
function addRequirements(guards: Map<string, GuardDeclaration[]>, requires: readonly RequiresDeclaration[]): void {
  for (const requirement of requires) {
    const list = guards.get(requirement.tool);
    if (list) guards.set(requirement.tool, list.map((guard) => ({ ...guard, body: [requirement.goal, ...guard.body] })));
  }
}

/** Adds to the list under `key` in place: copying the list per entry made 32,000 facts of one predicate take 10 s. */
function append<T>(lists: Map<string, T[]>, key: string, value: T): void {
  const list = lists.get(key);
  if (list) list.push(value);
  else lists.set(key, [value]);
}

/**
 * A bare lowercase word names a context variable when the rulebase declares one by that name, wherever the
 * declaration sits in the file; otherwise it is an atom. Quoted strings are never context variables.
 */
function resolveContexts(declarations: Declaration[]): Declaration[] {
  const names = new Set(declarations.flatMap((declaration) => (declaration.kind === 'context' ? [declaration.name] : [])));
  if (names.size === 0) return declarations;
  const term = (node: TermNode): TermNode => {
    switch (node.kind) {
      case 'constant':
        return typeof node.value === 'string' && !node.quoted && names.has(node.value) ? { kind: 'context', name: node.value, pos: node.pos } : node;
      case 'list':
        return { ...node, items: node.items.map(term) };
      case 'object':
        return { ...node, entries: node.entries.map((entry) => ({ key: entry.key, value: term(entry.value) })) };
      case 'arithmetic':
        return { ...node, left: term(node.left), right: term(node.right) };
      default:
        return node;
    }
  };
  const literal = (node: LiteralNode): LiteralNode => {
    switch (node.kind) {
      case 'call':
        return { ...node, args: node.args.map(term) };
      case 'compare':
        return { ...node, left: term(node.left), right: term(node.right) };
      case 'member':
        return { ...node, element: term(node.element), list: term(node.list) };
      case 'not':
        return { ...node, goal: literal(node.goal) };
    }
  };
  return declarations.map((declaration) => {
    switch (declaration.kind) {
      case 'rule':
        return { ...declaration, args: declaration.args.map(term), body: declaration.body.map(literal) };
      case 'guard':
        return {
          ...declaration,
          params: declaration.params.map((param) => ({ name: param.name, value: term(param.value) })),
          body: declaration.body.map(literal),
        };
      case 'data':
        return { ...declaration, toolArgs: declaration.toolArgs.map((arg) => ({ name: arg.name, value: term(arg.value) })) };
      case 'write': {
        const named = (args: Array<{ name: string; value: TermNode }>) => args.map((arg) => ({ name: arg.name, value: term(arg.value) }));
        return { ...declaration, params: named(declaration.params), invalidates: declaration.invalidates.map((target) => ({ ...target, args: named(target.args) })) };
      }
      default:
        return declaration;
    }
  });
}

/** Resolves context names in a goal parsed on its own (a query), against a rulebase's declared contexts. */
export function resolveGoalContexts(literals: LiteralNode[], rulebase: Rulebase): LiteralNode[] {
  const contexts: Declaration[] = [...rulebase.contexts.values()];
  const resolved = resolveContexts([...contexts, { kind: 'rule', predicate: '$goal', args: [], body: literals, pos: { line: 1, column: 1 } }]);
  const rule = resolved[resolved.length - 1] as RuleDeclaration;
  return rule.body;
}
