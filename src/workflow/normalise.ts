import { strategyFromTemplate } from '../intervene/strategy.js';
import type { Path } from './path.js';
import type { RawGuard, RawInlineTransition, RawState, RawTransition, RawWorkflow } from './schema.js';
import type {
  ConstraintDefinition,
  DeviationPolicy,
  InterventionDefinition,
  StateDefinition,
  TransitionDefinition,
  TransitionGuardDefinition,
  WorkflowDefinition,
} from './types.js';

/** Used when a file gives no `version`. */
export const DEFAULT_WORKFLOW_VERSION = '1.0';

/**
 * Where each part of a normalised definition came from, so cross-checks name the field the author wrote
 * (`transitions[0].to_state`, `states[2].transitions[1]`) rather than the normalised one.
 */
export interface DefinitionPaths {
  states: { item: Path; initial: Path; patterns: Path }[];
  constraints: Path[];
  transitions: { item: Path; from: Path; to: Path; expression: Path; minConfidence: Path }[];
  onDeviation: { intervention: Path };
}

/** Paths of a definition given directly (not parsed from a document): its own camelCase fields. */
export function definitionPaths(definition: WorkflowDefinition): DefinitionPaths {
  return {
    states: definition.states.map((_, index) => ({
      item: ['states', index],
      initial: ['states', index, 'initial'],
      patterns: ['states', index, 'classification', 'patterns'],
    })),
    transitions: definition.transitions.map((_, index) => {
      const item = ['transitions', index];
      return { item, from: [...item, 'from'], to: [...item, 'to'], expression: [...item, 'guard', 'expression'], minConfidence: [...item, 'guard', 'minConfidence'] };
    }),
    constraints: definition.constraints.map((_, index) => ['constraints', index]),
    onDeviation: { intervention: ['onDeviation', 'intervention'] },
  };
}

/** For each list, the index in the document of each entry kept (entries dropped by `salvage` leave gaps). */
export type SourceIndices = Partial<Record<'states' | 'transitions' | 'constraints', readonly number[]>>;

/**
 * Turns a shape-checked document into a `WorkflowDefinition`: camelCase, aliases resolved, inline transitions moved
 * into `transitions` (in state order, before the top-level list), template prefixes turned into strategies,
 * defaults filled. `initialState` is the first state marked initial; the cross-checks report when that is not
 * exactly one.
 */
export function normalise(raw: RawWorkflow, indices: SourceIndices = {}): { definition: WorkflowDefinition; paths: DefinitionPaths } {
  const sourceIndex = (list: keyof SourceIndices, index: number) => indices[list]?.[index] ?? index;
  const paths: DefinitionPaths = {
    states: [],
    transitions: [],
    constraints: raw.constraints.map((_, index) => ['constraints', sourceIndex('constraints', index)]),
    onDeviation: { intervention: ['on_invalid_transition', 'intervention'] },
  };
  const transitions: TransitionDefinition[] = [];

  const states = raw.states.map((state, index): StateDefinition => {
    const item = ['states', sourceIndex('states', index)];
    paths.states.push({ item, initial: [...item, state.initial === undefined ? 'is_initial' : 'initial'], patterns: [...item, 'classification', 'patterns'] });
    state.transitions?.forEach((inline, position) => {
      const inlinePath = [...item, 'transitions', position];
      transitions.push(inlineTransition(state.name, inline));
      const to = typeof inline === 'string' ? inlinePath : [...inlinePath, spelling(inline, ['to_state', 'target', 'to'])];
      paths.transitions.push({ item: inlinePath, from: [...item, 'name'], to, ...guardPaths(inlinePath) });
    });
    return normaliseState(state);
  });

  raw.transitions.forEach((transition, index) => {
    const item = ['transitions', sourceIndex('transitions', index)];
    transitions.push(topLevelTransition(transition));
    paths.transitions.push({
      item,
      from: [...item, spelling(transition, ['from_state', 'from'])],
      to: [...item, spelling(transition, ['to_state', 'target', 'to'])],
      ...guardPaths(item),
    });
  });

  const definition: WorkflowDefinition = {
    name: raw.name,
    version: raw.version === undefined ? DEFAULT_WORKFLOW_VERSION : String(raw.version),
    ...(raw.description === undefined ? {} : { description: raw.description }),
    states,
    transitions,
    constraints: raw.constraints.map(
      (constraint): ConstraintDefinition => ({
        name: constraint.name,
        type: constraint.type,
        ...definedOnly({ trigger: constraint.trigger, target: constraint.target, condition: constraint.condition }),
        severity: constraint.severity,
        ...(constraint.each ? { each: true } : {}),
        ...(constraint.grounded ? { grounded: constraint.grounded } : {}),
        ...definedOnly({ intervention: constraint.intervention, userMessage: constraint.user_message, description: constraint.description }),
        ...(constraint.options === undefined ? {} : { options: constraint.options }),
      }),
    ),
    interventions: Object.fromEntries(Object.entries(raw.interventions).map(([name, value]) => [name, intervention(name, value)])),
    onDeviation: deviation(raw.on_invalid_transition),
    ...(raw.transparent_tools && raw.transparent_tools.length > 0 ? { transparentTools: raw.transparent_tools } : {}),
    initialState: states.find((state) => state.initial)?.name ?? '',
  };
  return { definition, paths };
}

function normaliseState(state: RawState): StateDefinition {
  const classification = state.classification;
  return {
    name: state.name,
    ...definedOnly({ description: state.description }),
    initial: state.is_initial ?? state.initial ?? false,
    terminal: state.is_terminal ?? state.terminal ?? false,
    classification: {
      toolCalls: classification?.tool_calls ?? [],
      patterns: classification?.patterns ?? [],
      exemplars: classification?.exemplars ?? [],
      minSimilarity: classification?.min_similarity ?? 0.7,
      ...(classification?.turn === 'user' ? { turn: 'user' as const } : {}),
    },
    ...(state.transparent ? { transparent: true as const } : {}),
  };
}

function inlineTransition(from: string, inline: RawInlineTransition): TransitionDefinition {
  if (typeof inline === 'string') return { from, to: inline, priority: 0 };
  return {
    from,
    to: (inline.to_state ?? inline.target ?? inline.to)!,
    priority: inline.priority,
    ...definedOnly({ guard: inline.guard && guard(inline.guard), description: inline.description }),
  };
}

function topLevelTransition(transition: RawTransition): TransitionDefinition {
  return {
    from: (transition.from_state ?? transition.from)!,
    to: (transition.to_state ?? transition.target ?? transition.to)!,
    priority: transition.priority,
    ...definedOnly({ guard: transition.guard && guard(transition.guard), description: transition.description }),
  };
}

function guard(raw: RawGuard): TransitionGuardDefinition {
  return definedOnly({ minConfidence: raw.min_confidence, requiredMetadata: raw.required_metadata, expression: raw.expression });
}

function guardPaths(item: Path): { expression: Path; minConfidence: Path } {
  return { expression: [...item, 'guard', 'expression'], minConfidence: [...item, 'guard', 'min_confidence'] };
}

function intervention(name: string, value: RawWorkflow['interventions'][string]): InterventionDefinition {
  const written = typeof value === 'string' ? value : value.template;
  const { strategy, template } = strategyFromTemplate(written);
  if (typeof value === 'string') return { name, template, strategy, maxApplications: 3 };
  // A named strategy (a registered one) takes the template as written: no prefix is read.
  const chosen = value.strategy === undefined ? { strategy, template } : { strategy: value.strategy, template: written.trim() };
  return { name, ...chosen, maxApplications: value.max_applications, ...definedOnly({ userMessage: value.user_message, options: value.options }) };
}

function deviation(value: RawWorkflow['on_invalid_transition']): DeviationPolicy {
  if (typeof value === 'string') return { reaction: value };
  return { reaction: value.reaction, ...definedOnly({ intervention: value.intervention }) };
}

/** The spelling of an aliased key the author used (the shape check guarantees exactly one). */
function spelling(object: object, keys: readonly string[]): string {
  return keys.find((key) => key in object && (object as Record<string, unknown>)[key] !== undefined) ?? keys[0]!;
}

/** Drops undefined fields, so definitions compare equal whether an optional field was omitted or absent. */
function definedOnly<T extends Record<string, unknown>>(object: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
