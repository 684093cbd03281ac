import type { Diagnostic } from '../diagnostics/index.js';
import { WorkflowValidationError } from '../errors/index.js';
import { locate, whereIn } from './findings.js';
import { compileExpression, type GuardInput } from './guard.js';
import { definitionPaths } from './normalise.js';
import type { PositionIndex, SourcePosition } from './positions.js';
import type { InterventionDefinition, StateDefinition, TransitionDefinition, WorkflowDefinition } from './types.js';
import { checkDefinition } from './validate.js';
import { bindRegistry } from '../registry/compile.js';
import { defaultRegistry, type Registry } from '../registry/registry.js';
import type { CompiledParts } from './validate-compiled.js';

/**
 * A validated workflow, compiled once: patterns and guard expressions are ready to run, lookups are O(1). Immutable
 * (the definition is a frozen copy). It is also a transition graph (`states`, `successors`), so temporal code can
 * take it directly.
 */
export interface Workflow {
  /** The normalised definition, deeply frozen. */
  readonly definition: WorkflowDefinition;
  /** The workflow's `name`. */
  readonly name: string;
  /** The file name or label the workflow was parsed from, when known. */
  readonly source?: string;
  /** The one state every session starts in. */
  readonly initialState: string;
  /** State names in file order. */
  readonly stateNames: readonly string[];
  /** Same as `stateNames`: the `TransitionGraph` view. */
  readonly states: readonly string[];
  /** Warnings found while loading (errors prevent a workflow from being built). */
  readonly diagnostics: readonly Diagnostic[];
  /** The state's definition, or `undefined` when the workflow has no such state. */
  state(name: string): StateDefinition | undefined;
  /** Whether `name` is one of the workflow's states (case-sensitive). */
  hasState(name: string): boolean;
  /**
   * The states reachable from `name` in one transition, highest priority first. A state with no outgoing
   * transitions listed allows any next state, so its successors are all states, except a
   * terminal state, where the workflow ends and there are none. Targets that are not states (accepted with
   * `strict: false`) are left out. Empty for an unknown state.
   */
  successors(name: string): readonly string[];
  /**
   * Whether `name` is a non-terminal state with no outgoing transitions listed, so any state may follow it and
   * `successors(name)` is every state. Searches use it to treat "any next state" as one move, not one per state.
   */
  isUnconstrained(name: string): boolean;
  /**
   * Whether the transitions allow moving from `from` to `to`, ignoring guards (`checkGuard` decides those).
   * Staying in a state is always allowed: it adds nothing to the trace.
   */
  isAllowed(from: string, to: string): boolean;
  /** The transitions listed out of `from`, highest priority first, file order among equals. */
  transitionsFrom(from: string): readonly TransitionDefinition[];
  /** The state's classification patterns, compiled once, case-insensitive. */
  patterns(stateName: string): readonly RegExp[];
  /**
   * Whether the transition's guard holds for a step: `min_confidence`, `required_metadata` and the CEL
   * `expression` all must. No guard holds. An expression that fails at run time (a missing key) is false.
   */
  checkGuard(transition: TransitionDefinition, input: GuardInput): boolean;
  /** The named intervention, or `undefined`. */
  intervention(name: string): InterventionDefinition | undefined;
  /** Where a field (`states[2]`, `constraints[0].target`) is in the source text; `undefined` without text. */
  positionOf(path: string): SourcePosition | undefined;
}

/**
 * Builds a workflow from a definition written in code (or taken from another workflow). Runs the same checks as
 * the loader, strictly: references to undefined states are errors here.
 * @param diagnostics kept on `workflow.diagnostics` instead of the warnings found here (e.g. the loader's, which
 * carry lines and columns).
 * @param options.registry where the constraint types and strategies it names are looked up. @default defaultRegistry
 * @throws {WorkflowValidationError} with every error found.
 * @example
 * const workflow = createWorkflow({
 *   name: 'support', version: '1', initialState: 'greeting',
 *   states: [
 *     { name: 'greeting', initial: true, terminal: false, classification: { toolCalls: [], patterns: ['hello'], exemplars: [], minSimilarity: 0.7 } },
 *     { name: 'done', initial: false, terminal: true, classification: { toolCalls: ['close'], patterns: [], exemplars: [], minSimilarity: 0.7 } },
 *   ],
 *   transitions: [{ from: 'greeting', to: 'done', priority: 0 }],
 *   constraints: [], interventions: {}, onDeviation: { reaction: 'record' },
 * });
 * workflow.isAllowed('greeting', 'done'); // true
 */
export function createWorkflow(definition: WorkflowDefinition, diagnostics?: readonly Diagnostic[], { registry = defaultRegistry }: { registry?: Registry } = {}): Workflow {
  const paths = definitionPaths(definition);
  const { findings, compiled, strategyOptions } = checkDefinition(definition, { strict: true, paths, registry, where: whereIn(undefined) });
  if (!definition.states.some((state) => state.name === definition.initialState)) {
    findings.push({ severity: 'error', code: 'unknown-state', message: `initialState '${definition.initialState}' is not a state`, path: ['initialState'] });
  } else if (!definition.states.find((state) => state.name === definition.initialState)!.initial) {
    findings.push({ severity: 'error', code: 'initial-state-mismatch', message: `initialState '${definition.initialState}' does not have \`initial: true\``, path: ['initialState'] });
  }
  const located = locate(findings, undefined, undefined);
  if (located.some((diagnostic) => diagnostic.severity === 'error')) throw new WorkflowValidationError(located);
  return buildWorkflow(definition, compiled, { diagnostics: diagnostics ?? located, registry, strategyOptions });
}

/** Assembles a workflow from a checked definition and what the checks compiled; the loader's entry point. */
export function buildWorkflow(
  definition: WorkflowDefinition,
  compiled: CompiledParts,
  {
    diagnostics = [],
    positions,
    source,
    registry = defaultRegistry,
    strategyOptions,
  }: { diagnostics?: readonly Diagnostic[]; positions?: PositionIndex; source?: string; registry?: Registry; strategyOptions?: ReadonlyMap<string, unknown> },
): Workflow {
  const copy = structuredClone(definition);
  // A registered strategy's options as its schema parsed them (defaults filled), not as written.
  for (const [name, options] of strategyOptions ?? []) if (copy.interventions[name]) copy.interventions[name].options = options;
  const frozen = deepFreeze(copy);
  const stateNames = Object.freeze(frozen.states.map((state) => state.name));
  const states = new Map(frozen.states.map((state) => [state.name, state] as const));
  const outgoing = transitionsByState(frozen.transitions);
  const none: readonly never[] = Object.freeze([]);
  const successors = new Map<string, readonly string[]>();
  // Only listed moves get a set: an unconstrained state's "any state" is the flag below, not a set of every state,
  // which for N such states would hold N x N entries (8,000 states took 1.4 GB).
  const successorSets = new Map<string, ReadonlySet<string>>();
  const unconstrained = new Set<string>();
  for (const name of stateNames) {
    const listed = outgoing.get(name);
    if (listed === undefined) {
      // A terminal state with nothing listed ends the workflow; any other state with nothing listed is unconstrained.
      const terminal = states.get(name)!.terminal;
      successors.set(name, terminal ? none : stateNames);
      if (!terminal) unconstrained.add(name);
      continue;
    }
    const next = new Set(listed.map((transition) => transition.to).filter((to) => states.has(to)));
    successors.set(name, Object.freeze([...next]));
    successorSets.set(name, next);
  }
  const patterns = new Map([...compiled.patterns].map(([name, regexes]) => [name, Object.freeze([...regexes])] as const));

  const workflow: Workflow = Object.freeze({
    definition: frozen,
    name: frozen.name,
    ...(source === undefined ? {} : { source }),
    initialState: frozen.initialState,
    stateNames,
    states: stateNames,
    diagnostics: Object.freeze([...diagnostics]),
    state: (name: string) => states.get(name),
    hasState: (name: string) => states.has(name),
    successors: (name: string) => successors.get(name) ?? none,
    isUnconstrained: (name: string) => unconstrained.has(name),
    isAllowed: (from: string, to: string) => (from === to || unconstrained.has(from) ? states.has(from) && states.has(to) : (successorSets.get(from)?.has(to) ?? false)),
    transitionsFrom: (from: string) => outgoing.get(from) ?? none,
    patterns: (stateName: string) => patterns.get(stateName) ?? none,
    checkGuard: (transition: TransitionDefinition, input: GuardInput) => guardHolds(transition, input, compiled),
    intervention: (name: string) => (Object.hasOwn(frozen.interventions, name) ? frozen.interventions[name] : undefined),
    positionOf: (path: string) => positions?.get(path),
  });
  bindRegistry(workflow, registry);
  return workflow;
}

function guardHolds(transition: TransitionDefinition, input: GuardInput, compiled: CompiledParts): boolean {
  const { guard } = transition;
  if (guard === undefined) return true;
  const metadata = input.metadata ?? {};
  if (guard.minConfidence !== undefined && !(input.confidence >= guard.minConfidence)) return false;
  if (guard.requiredMetadata?.some((key) => !Object.hasOwn(metadata, key) || metadata[key] === undefined)) return false;
  if (guard.expression === undefined) return true;
  // A transition from elsewhere (a copy) may carry an expression this workflow did not compile: compile it now.
  const program = compiled.expressions.get(guard.expression) ?? compileExpression(guard.expression).program;
  return program ? program({ confidence: input.confidence, method: input.method, metadata, from: transition.from, to: transition.to }) : false;
}

/** Outgoing transitions by state, highest priority first; `sort` is stable, so file order breaks ties. */
function transitionsByState(transitions: readonly TransitionDefinition[]): Map<string, readonly TransitionDefinition[]> {
  const byState = new Map<string, TransitionDefinition[]>();
  for (const transition of transitions) {
    const list = byState.get(transition.from) ?? [];
    list.push(transition);
    byState.set(transition.from, list);
  }
  return new Map([...byState].map(([state, list]) => [state, Object.freeze(list.sort((a, b) => b.priority - a.priority))] as const));
}

/** Freezes `value` and everything it holds, so a shared value cannot be changed by one of its holders. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
