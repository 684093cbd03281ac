import type { ConstraintType, TemporalConstraint } from '../temporal/types.js';

/** How bad a constraint violation is. `critical` escalates straight to a block. */
export type Severity = 'warning' | 'error' | 'critical';
export const SEVERITIES: readonly Severity[] = ['warning', 'error', 'critical'];

/**
 * How an intervention is delivered on the next model call: a built-in, chosen by the template's prefix, or the name
 * of a registered strategy (`defineInterventionStrategy`).
 */
export type InterventionStrategy = 'system-prompt-append' | 'user-message-inject' | 'context-reminder' | 'hard-block' | (string & {});

/** How a state is recognised in a model response. */
export interface ClassificationDefinition {
  /** Tool names whose call means the agent is in this state. */
  toolCalls: string[];
  /** Case-insensitive regular expressions matched against the response text. */
  patterns: string[];
  /** Example responses for embedding similarity. */
  exemplars: string[];
  /** Lowest cosine similarity to an exemplar that counts. @default 0.7 */
  minSimilarity: number;
  /** `user`: the patterns are matched against the user's messages, not the assistant's. Absent for the assistant. */
  turn?: 'user';
}

export interface StateDefinition {
  name: string;
  description?: string;
  initial: boolean;
  terminal: boolean;
  classification: ClassificationDefinition;
  /** Constraints that do not name it skip it; moves into and out of it are judged from the state before it. */
  transparent?: true;
}

/** Extra conditions a transition needs besides its endpoints. All given conditions must hold. */
export interface TransitionGuardDefinition {
  /** The classification's confidence must be at least this. */
  minConfidence?: number;
  /** These keys must be present in the step's metadata. */
  requiredMetadata?: string[];
  /** A CEL expression over `confidence`, `method`, `from`, `to` and `metadata`; never run through `eval`. */
  expression?: string;
}

export interface TransitionDefinition {
  from: string;
  to: string;
  /** Higher wins when several transitions could apply. @default 0 */
  priority: number;
  guard?: TransitionGuardDefinition;
  description?: string;
}

export interface ConstraintDefinition extends Omit<TemporalConstraint, 'type'> {
  /** A built-in type, or the name of a type registered with `defineConstraintType`. */
  type: ConstraintType | (string & {});
  /** A registered type's options as written; checked against its schema when the workflow loads. */
  options?: Record<string, unknown>;
  /** @default 'error' */
  severity: Severity;
  /**
   * `precedence` with `each` only, its target recognised in the user's turn and its trigger by tool calls: the
   * trigger call's arguments the confirming message must have stated. The target counts for a call only when the
   * message its latest entry answered (the agent's messages since the user's message before it) stated every one of
   * them, matched as the sentinel's grounded confirmations match them (`unstatedArguments`).
   */
  grounded?: string[];
  /** Name of the intervention to schedule on violation. */
  intervention?: string;
  /**
   * What the user is told instead of a response withheld for breaking this constraint (plain text, shown as
   * written). Wins over its intervention's; without either, `DEFAULT_USER_MESSAGE`.
   */
  userMessage?: string;
  description?: string;
}

export interface InterventionDefinition {
  name: string;
  /** The template text without its strategy prefix, with `{variables}`. */
  template: string;
  strategy: InterventionStrategy;
  /** How often it may be applied in one session before escalating. @default 3 */
  maxApplications: number;
  /** A registered strategy's options, checked against its schema at load. */
  options?: unknown;
  /** What the user is told instead of a response withheld by a constraint with this intervention (plain text). */
  userMessage?: string;
}

/** What happens when the agent moves along a transition the workflow does not list. */
export interface DeviationPolicy {
  /** `record` only notes it; `intervene` also schedules `intervention`; `block` refuses like a critical violation. @default 'record' */
  reaction: 'record' | 'intervene' | 'block';
  intervention?: string;
}

/** A workflow after parsing and validation: every name resolved, every default filled in. */
export interface WorkflowDefinition {
  name: string;
  version: string;
  description?: string;
  states: StateDefinition[];
  transitions: TransitionDefinition[];
  constraints: ConstraintDefinition[];
  interventions: Record<string, InterventionDefinition>;
  onDeviation: DeviationPolicy;
  /** Tools whose calls enter no state (`transparent_tools`). Absent when none. */
  transparentTools?: string[];
  /** Name of the one initial state. */
  initialState: string;
}
