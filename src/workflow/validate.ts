import { closestName, createDidYouMean, DEFAULT_SUGGESTION_LIMIT, didYouMean as suggestType } from '../diagnostics/index.js';
import { CONSTRAINT_PARAMETERS, CONSTRAINT_TYPES, EACH_TYPES, type ConstraintParameter, type ConstraintType, type StateSelector } from '../temporal/types.js';
import { listNames, type Finding, type Where } from './findings.js';
import type { DefinitionPaths } from './normalise.js';
import { formatPath, type Path } from './path.js';
import { SEVERITIES, type ConstraintDefinition, type WorkflowDefinition } from './types.js';
import type { Dropped } from './salvage.js';
import { checkCompiledParts, type CompiledParts } from './validate-compiled.js';
import { checkRegisteredConstraint, checkStrategies } from './validate-extensions.js';
import { defaultRegistry, type Registry } from '../registry/registry.js';

/** Options of `checkDefinition`. */
export interface CheckOptions {
  /** Unknown state names are errors when true, warnings when false. */
  strict: boolean;
  paths: DefinitionPaths;
  where: Where;
  /**
   * Names of states and interventions whose entries failed the shape check: they exist, so references to them are
   * not reported again, and the initial-state count is skipped because a dropped state may be the initial one.
   */
  dropped?: Dropped;
  /** Where constraint types and intervention strategies are looked up. @default defaultRegistry */
  registry?: Registry;
}

/**
 * Cross-checks a normalised definition: one initial state, unique names, every reference
 * resolves, each constraint has the parameters its type reads, patterns and guard expressions compile and are
 * safe. Returns the compiled patterns and expressions so they are built only once.
 */
export function checkDefinition(definition: WorkflowDefinition, options: CheckOptions): { findings: Finding[]; compiled: CompiledParts; strategyOptions: Map<string, unknown> } {
  const findings: Finding[] = [];
  const report = (finding: Finding) => findings.push(finding);
  const didYouMean = createDidYouMean();
  const knownStates = new Set([...definition.states.map((state) => state.name), ...(options.dropped?.states ?? [])]);
  const stateNames = [...knownStates];
  // Each unknown name with its findings, so a duplicate state can take over the ones its lost name caused.
  const unknown = new Map<string, Finding[]>();
  const checkState = (name: string, path: Path) => {
    if (knownStates.has(name)) return;
    const suggestion = didYouMean(name, knownStates);
    const finding: Finding = {
      severity: options.strict ? 'error' : 'warning',
      code: 'unknown-state',
      message: `unknown state '${name}'`,
      path,
      hint: `known states: ${listNames(stateNames)}${suggestion ? `; ${suggestion}` : ''}`,
    };
    report(finding);
    unknown.set(name, [...(unknown.get(name) ?? []), finding]);
  };

  const duplicates = checkStates(definition, options, report);
  definition.transitions.forEach((transition, index) => {
    const paths = options.paths.transitions[index]!;
    checkState(transition.from, paths.from);
    checkState(transition.to, paths.to);
  });
  checkConstraints(definition, options, report, checkState, didYouMean);
  const compiled = checkCompiledParts(definition, options.paths, report);
  const strategyOptions = checkStrategies(definition, options.registry ?? defaultRegistry, report);
  const followOns = explainDuplicates(duplicates, unknown, knownStates);
  return { findings: followOns.size === 0 ? findings : findings.filter((finding) => !followOns.has(finding)), compiled, strategyOptions };
}

/** A state name defined more than once: the finding reported for it and where each definition is. */
interface DuplicateState {
  name: string;
  finding: Finding;
  /** `at line 21, column 11`, one per definition. */
  places: string[];
}

/**
 * A state renamed to a name already in use (or copied and not renamed) leaves the references to its old name unknown:
 * five errors that all follow from the duplicate. When as many names are unknown as states are duplicated, and none is
 * a likely typo of a defined state, each duplicate's hint names one of them as the name it was probably meant to
 * have, with the references that use it, and those references are not reported again.
 * @returns the findings the duplicates explain, to leave out.
 */
function explainDuplicates(duplicates: readonly DuplicateState[], unknown: ReadonlyMap<string, Finding[]>, knownStates: ReadonlySet<string>): Set<Finding> {
  const explained = new Set<Finding>();
  if (duplicates.length === 0 || unknown.size === 0) return explained;
  // A name close to a defined one is a typo, reported with its suggestion. The suggestion search is bounded as the
  // checks' own is, against a file of thousands of unknown names.
  const lost = [...unknown.keys()].slice(0, DEFAULT_SUGGESTION_LIMIT).filter((name) => closestName(name, knownStates) === undefined);
  if (lost.length === 0 || lost.length > duplicates.length || unknown.size > DEFAULT_SUGGESTION_LIMIT) return explained;
  lost.forEach((name, index) => {
    const { finding } = duplicates[index]!;
    const references = unknown.get(name)!;
    for (const reference of references) explained.add(reference);
    const paths = listNames(references.map((reference) => formatPath(reference.path)), 6);
    finding.hint = `${renameHint(duplicates[index]!.places.length)}: it is probably meant to be '${name}', which ${references.length} reference${references.length === 1 ? '' : 's'} use${references.length === 1 ? 's' : ''} and no state defines (${paths})`;
  });
  return explained;
}

function renameHint(definitions: number): string {
  return definitions === 2 ? 'rename one of them' : 'rename all but one of them';
}

/**
 * Unique names and one initial state. A name defined more than once is reported once, at its second definition, with
 * every place it is defined.
 * @returns the duplicated names, in order, with their findings.
 */
function checkStates(definition: WorkflowDefinition, { paths, where, dropped }: CheckOptions, report: (finding: Finding) => void): DuplicateState[] {
  const definedAt = new Map<string, Path[]>();
  definition.states.forEach((state, index) => definedAt.set(state.name, [...(definedAt.get(state.name) ?? []), [...paths.states[index]!.item, 'name']]));
  const duplicates: DuplicateState[] = [];
  for (const [name, namePaths] of definedAt) {
    if (namePaths.length < 2) continue;
    const places = namePaths.map((path) => `at ${where(path)}`);
    const times = places.length === 2 ? 'twice' : `${places.length} times`;
    const message = `state '${name}' is defined ${times}: ${places.slice(0, -1).join(', ')} and ${places.at(-1)}`;
    const finding: Finding = { severity: 'error', code: 'duplicate-state', message, path: namePaths[1]!, hint: `${renameHint(places.length)}: state names must be unique` };
    duplicates.push({ name, places, finding });
    report(finding);
  }
  if (dropped?.someStates) return duplicates;
  const initial = definition.states.flatMap((state, index) => (state.initial ? [{ state, path: paths.states[index]!.initial }] : []));
  if (initial.length === 0) {
    const names = definition.states.map((state) => state.name);
    report({
      severity: 'error',
      code: 'no-initial-state',
      message: `no initial state among ${listNames(names)}`,
      path: ['states'],
      hint: `add \`initial: true\` to the state every session starts in${names[0] ? `, e.g. '${names[0]}'` : ''}`,
    });
  } else if (initial.length > 1 && new Set(initial.map(({ state }) => state.name)).size > 1) {
    // Copies of one state, each initial, are the duplicate already reported.
    const listed = initial.map(({ state, path }) => `'${state.name}' (${where(path)})`).join(', ');
    report({
      severity: 'error',
      code: 'multiple-initial-states',
      message: `${initial.length} initial states: ${listed}`,
      path: initial[1]!.path,
      at: 'key',
      hint: 'exactly one state may have `initial: true`; remove it from the others',
    });
  }
  return duplicates;
}

function checkConstraints(
  definition: WorkflowDefinition,
  { where, dropped, paths, registry = defaultRegistry }: CheckOptions,
  report: (finding: Finding) => void,
  checkState: (name: string, path: Path) => void,
  didYouMean: (name: string, known: Iterable<string>) => string,
): void {
  const interventions = [...Object.keys(definition.interventions), ...(dropped?.interventions ?? [])];
  const knownInterventions = new Set(interventions);
  const checkIntervention = (name: string | undefined, path: Path) => {
    if (name === undefined || knownInterventions.has(name)) return;
    const suggestion = didYouMean(name, interventions);
    const known = interventions.length === 0 ? 'no interventions are defined; add it under `interventions:`' : `defined interventions: ${listNames(interventions)}`;
    report({ severity: 'error', code: 'unknown-intervention', message: `unknown intervention '${name}'`, path, hint: `${known}${suggestion ? `; ${suggestion}` : ''}` });
  };
  const names = new Map<string, Path>();
  definition.states.forEach((state, index) => {
    const { classification } = state;
    if (classification.turn !== 'user' || (classification.toolCalls.length === 0 && classification.exemplars.length === 0)) return;
    const path = [...(paths.states[index]?.item ?? ['states', index]), 'classification', 'turn'];
    report({ severity: 'error', code: 'user-turn-classification', message: `state '${state.name}' is recognised in the user's turn, which has no tool calls and no exemplars here`, path, hint: 'use `patterns` only with `turn: user`, or move the tool calls and exemplars to another state' });
  });
  definition.constraints.forEach((constraint, index) => {
    const item = paths.constraints[index]!;
    const first = names.get(constraint.name);
    if (first) {
      report({ severity: 'error', code: 'duplicate-constraint', message: `constraint name '${constraint.name}' is already used at ${where(first)}`, path: [...item, 'name'], hint: 'constraint names must be unique' });
    } else names.set(constraint.name, [...item, 'name']);
    if (!SEVERITIES.includes(constraint.severity)) {
      report({ severity: 'error', code: 'invalid-severity', message: `invalid severity '${String(constraint.severity)}'`, path: [...item, 'severity'], hint: `expected one of: ${SEVERITIES.join(', ')}` });
    }
    checkIntervention(constraint.intervention, [...item, 'intervention']);
    // Every type, built-in or not, is looked up in the registry the workflow is loaded with.
    const registered = registry.constraintType(constraint.type);
    if (!registered) {
      const known = registry.constraintTypeNames();
      const suggestion = suggestType(constraint.type, known); // a handful of names: no budget needed
      // A likely typo gets its suggestion; otherwise it may be a type of the author's own that was not registered.
      const custom = suggestion ? '' : '; a type of your own must be registered (defineConstraintType) in the registry the workflow is loaded with, or given to the CLI with `--module` (the proxy: `modules:`)';
      report({ severity: 'error', code: 'unknown-constraint-type', message: `unknown constraint type "${constraint.type}"`, path: [...item, 'type'], hint: `expected one of: ${known.join(', ')}${suggestion ? `; ${suggestion}` : ''}${custom}` });
      return;
    }
    if (!registry.isBuiltInConstraintType(constraint.type)) {
      checkRegisteredConstraint(constraint, registered, item, report, checkState);
      return;
    }
    if (constraint.grounded) checkGrounded(definition, constraint, item, report);
    checkBuiltInConstraint(constraint as ConstraintDefinition & { type: ConstraintType }, item, report, checkState);
  });
  checkIntervention(definition.onDeviation.intervention, paths.onDeviation.intervention);
}

/** The built-in types' own check: the parameters each reads, `each` where it applies, the selectors' states. */
function checkBuiltInConstraint(
  constraint: ConstraintDefinition & { type: ConstraintType },
  item: Path,
  report: (finding: Finding) => void,
  checkState: (name: string, path: Path) => void,
): void {
  if (constraint.options !== undefined) {
    report({ severity: 'error', code: 'unexpected-options', message: `built-in type '${constraint.type}' takes no \`options\``, path: [...item, 'options'], at: 'key', hint: 'write its parameters (`trigger`, `target`, `condition`, `each`) as keys of the constraint' });
  }
  if (constraint.each && !EACH_TYPES.includes(constraint.type)) {
    report({ severity: 'error', code: 'each-not-supported', message: `\`each\` does not apply to type '${constraint.type}'`, path: [...item, 'each'], at: 'key', hint: `\`each\` applies to ${EACH_TYPES.join(' and ')}; remove it` });
  }
  const { required, optional } = CONSTRAINT_PARAMETERS[constraint.type];
  for (const parameter of PARAMETERS) {
    const selector = constraint[parameter];
    if (selector === undefined) {
      if (required.includes(parameter)) {
        report({
          severity: 'error',
          code: 'missing-parameter',
          message: `constraint '${constraint.name}' of type '${constraint.type}' needs \`${parameter}\``,
          path: [...item, parameter],
          hint: `add \`${parameter}\`: ${ROLES[constraint.type][parameter] ?? 'a state'} (a state name, \`!state\`, \`*\` or a list of these)`,
        });
      }
      continue;
    }
    if (!required.includes(parameter) && !optional.includes(parameter)) {
      const reads = [...required, ...optional].map((name) => `\`${name}\``).join(' and ');
      report({ severity: 'warning', code: 'unused-parameter', message: `\`${parameter}\` is ignored by type '${constraint.type}'`, path: [...item, parameter], at: 'key', hint: `type '${constraint.type}' reads only ${reads}` });
    }
    checkSelector(selector, [...item, parameter], report, checkState);
  }
}

const PARAMETERS: readonly ConstraintParameter[] = ['trigger', 'target', 'condition'];

/**
 * `grounded` reads the arguments of the trigger's tool call and the message the user answered with the target: so
 * only a `precedence` with `each` (a yes confirms one call), its target states recognised in the user's turn and its
 * trigger states by tool calls, all named (a `*` or `!state` could take in states of neither kind).
 */
function checkGrounded(definition: WorkflowDefinition, constraint: ConstraintDefinition, item: Path, report: (finding: Finding) => void): void {
  const path = [...item, 'grounded'];
  const fail = (code: string, message: string, hint: string) => report({ severity: 'error', code, message, path, at: 'key', hint });
  if (constraint.type !== 'precedence') return fail('grounded-not-supported', `\`grounded\` does not apply to type '${constraint.type}'`, 'use `grounded` on a `precedence` whose target is the user\'s confirmation, or remove it');
  if (!constraint.each) return fail('grounded-needs-each', `constraint '${constraint.name}' has \`grounded\` without \`each: true\``, 'add `each: true`: a yes confirms one call, so every call needs its own');
  const duplicate = constraint.grounded!.find((name, index) => constraint.grounded!.indexOf(name) !== index);
  if (duplicate !== undefined) return fail('grounded-duplicate-argument', `argument '${duplicate}' is listed twice in \`grounded\``, 'list each argument once');
  const states = new Map(definition.states.map((state) => [state.name, state]));
  const named = (selector: StateSelector | undefined) => (selector === undefined ? [] : typeof selector === 'string' ? [selector] : [...selector]);
  const wildcard = [...named(constraint.trigger), ...named(constraint.target)].find((name) => name === '*' || name.startsWith('!'));
  if (wildcard !== undefined) return fail('grounded-needs-named-states', `\`grounded\` needs its trigger and target named, not '${wildcard}'`, 'name the write states in `trigger` and the confirmation states in `target`');
  const notUser = named(constraint.target).find((name) => states.has(name) && states.get(name)!.classification.turn !== 'user');
  if (notUser !== undefined) return fail('grounded-target-not-user-turn', `target '${notUser}' of a grounded constraint is not recognised in the user's turn`, `add \`turn: user\` to the classification of '${notUser}' (the user's yes), or remove \`grounded\``);
  const noTool = named(constraint.trigger).find((name) => states.has(name) && states.get(name)!.classification.toolCalls.length === 0);
  if (noTool !== undefined) return fail('grounded-trigger-not-tool-call', `trigger '${noTool}' of a grounded constraint is not recognised by tool calls, so it has no arguments`, `give '${noTool}' \`tool_calls\`, or remove \`grounded\``);
}

/** What each parameter means per type, for the hint of a missing parameter. */
const ROLES: Record<ConstraintType, Partial<Record<ConstraintParameter, string>>> = {
  eventually: { target: 'the state that must be reached' },
  never: { target: 'the state that must never be entered' },
  always: { condition: 'the states every step must be in' },
  precedence: { trigger: 'the state that needs a predecessor', target: 'the state that must come first' },
  response: { trigger: 'the state that starts the obligation', target: 'the state that must follow it' },
  until: { trigger: 'A, the states that must hold', target: 'B, the state that ends it' },
  next: { target: 'the state that must come next', trigger: 'the state after which it must come' },
};

function checkSelector(selector: StateSelector, path: Path, report: (finding: Finding) => void, checkState: (name: string, path: Path) => void): void {
  const elements = typeof selector === 'string' ? [{ element: selector, path }] : selector.map((element, index) => ({ element, path: [...path, index] }));
  if (elements.length === 0) {
    report({ severity: 'error', code: 'invalid-selector', message: 'an empty list names no state', path, hint: 'name a state, `!state`, `*`, or a non-empty list of these' });
  }
  for (const { element, path: elementPath } of elements) {
    const name = element.startsWith('!') ? element.slice(1) : element;
    if (element === '*') continue;
    if (name === '' || name === '*') {
      report({ severity: 'error', code: 'invalid-selector', message: `'${element}' names no state`, path: elementPath, hint: 'name a state, `!state` (any state but that one) or `*` (any state)' });
      continue;
    }
    checkState(name, elementPath);
  }
}

