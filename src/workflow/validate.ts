import { createDidYouMean, didYouMean as suggestType } from '../diagnostics/index.js';
import { CONSTRAINT_PARAMETERS, CONSTRAINT_TYPES, type ConstraintParameter, type ConstraintType, type StateSelector } from '../temporal/types.js';
import { listNames, type Finding, type Where } from './findings.js';
import type { DefinitionPaths } from './normalise.js';
import type { Path } from './path.js';
import { SEVERITIES, type WorkflowDefinition } from './types.js';
import type { Dropped } from './salvage.js';
import { checkCompiledParts, type CompiledParts } from './validate-compiled.js';

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
}

/**
 * Cross-checks a normalised definition (DESIGN.md section 3): one initial state, unique names, every reference
 * resolves, each constraint has the parameters its type reads, patterns and guard expressions compile and are
 * safe. Returns the compiled patterns and expressions so they are built only once.
 */
export function checkDefinition(definition: WorkflowDefinition, options: CheckOptions): { findings: Finding[]; compiled: CompiledParts } {
  const findings: Finding[] = [];
  const report = (finding: Finding) => findings.push(finding);
  const didYouMean = createDidYouMean();
  const stateNames = [...definition.states.map((state) => state.name), ...(options.dropped?.states ?? [])];
  const knownStates = new Set(stateNames);
  const checkState = (name: string, path: Path) => {
    if (knownStates.has(name)) return;
    const suggestion = didYouMean(name, knownStates);
    report({
      severity: options.strict ? 'error' : 'warning',
      code: 'unknown-state',
      message: `unknown state '${name}'`,
      path,
      hint: `known states: ${listNames(stateNames)}${suggestion ? `; ${suggestion}` : ''}`,
    });
  };

  checkStates(definition, options, report);
  definition.transitions.forEach((transition, index) => {
    const paths = options.paths.transitions[index]!;
    checkState(transition.from, paths.from);
    checkState(transition.to, paths.to);
  });
  checkConstraints(definition, options, report, checkState, didYouMean);
  const compiled = checkCompiledParts(definition, options.paths, report);
  return { findings, compiled };
}

function checkStates(definition: WorkflowDefinition, { paths, where, dropped }: CheckOptions, report: (finding: Finding) => void): void {
  const seen = new Map<string, Path>();
  definition.states.forEach((state, index) => {
    const namePath = [...paths.states[index]!.item, 'name'];
    const first = seen.get(state.name);
    if (first) {
      report({ severity: 'error', code: 'duplicate-state', message: `state '${state.name}' is defined twice, first at ${where(first)}`, path: namePath, hint: 'state names must be unique' });
    } else seen.set(state.name, namePath);
  });
  if (dropped?.someStates) return;
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
  } else if (initial.length > 1) {
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
}

function checkConstraints(
  definition: WorkflowDefinition,
  { where, dropped, paths }: CheckOptions,
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
    if (!(CONSTRAINT_TYPES as readonly string[]).includes(constraint.type)) {
      const suggestion = suggestType(constraint.type, CONSTRAINT_TYPES); // seven names: no budget needed
      report({ severity: 'error', code: 'unknown-constraint-type', message: `unknown constraint type '${constraint.type}'`, path: [...item, 'type'], hint: `expected one of: ${CONSTRAINT_TYPES.join(', ')}${suggestion ? `; ${suggestion}` : ''}` });
      return;
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
  });
  checkIntervention(definition.onDeviation.intervention, paths.onDeviation.intervention);
}

const PARAMETERS: readonly ConstraintParameter[] = ['trigger', 'target', 'condition'];

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

