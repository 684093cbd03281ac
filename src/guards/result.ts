import type { Value } from '../rules/index.js';
import type { ProvenanceLink } from './provenance-relations.js';

/** How a step of a proof was established. */
export type DerivationKind = 'goal' | 'guard' | 'rule' | 'fact' | 'askable' | 'builtin' | 'comparison' | 'membership' | 'negation';

/** A proof, as a tree: each goal with what established it and the sub-proofs it needed. */
export interface Derivation {
  /** The goal with its values filled in, in rule-language syntax: `refundable("ABC123")`. */
  goal: string;
  by: DerivationKind;
  /** For facts, where they came from (`tool:get_booking`, `user`, `seed`); for rules and guards, `file:line`. */
  source?: string;
  children: Derivation[];
}

/**
 * What stands between a goal and its proof. The kinds that the agent can act on (ask, bind a context, retry a
 * fetch) make a result `blocked`; a result with only `condition` blockers is `failed`: the facts say no.
 */
export type Blocker =
  /**
   * An askable the user has not confirmed; every other condition of that proof held or was fetched first. For a
   * confirmation of one call (`askable ... for tool`), `call` is that exact call as the user should read it, and the
   * last of `args` (and of `goal`) is its reference: recording the yes with this goal binds it to this call only.
   */
  | {
      kind: 'ask';
      predicate: string;
      args: Array<Value | null>;
      goal: string;
      question: string;
      call?: string;
      /**
       * A grounded confirmation (`askable ... for tool(param, ...)`): the named arguments the message the user said
       * yes to did not state, so that yes does not count for this call.
       */
      unstated?: string[];
      /** A grounded confirmation: the user's last yes already confirmed another call (a yes counts once). */
      spent?: true;
    }
  /** A context variable the rules read that nobody bound. */
  | { kind: 'bind-context'; name: string; description?: string }
  /** A data tool that threw, timed out, was refused by its own guard, or returned a shape its JSON paths do not fit. */
  | { kind: 'fetch-failed'; tool: string; args: Record<string, Value>; reason: string }
  /** Two facts that cannot both hold (one value expected for these inputs). */
  | { kind: 'contradiction'; goal: string; facts: string[] }
  /** The search stopped: a recursion cycle, the depth bound or the step budget. */
  | { kind: 'limit'; reason: string; goal: string }
  /**
   * Strict mode: a literal argument that nothing read in this conversation, no fact and no context binding contains.
   * `read` names the data tool call that would establish it, when the rulebase shows one; `given` says the rulebase
   * lets the user give it (`given tool(param)`), so asking the user establishes it.
   */
  | { kind: 'unestablished-value'; parameter: string; value: Value; read?: string; given?: true }
  /** A tool call with no guard declared for it, when unguarded tools are denied. */
  | { kind: 'no-guard'; tool: string }
  /** A guard parameter the call did not pass. */
  | { kind: 'missing-argument'; parameter: string }
  /** Panoptes itself failed while checking; the call is denied, never let through unchecked. */
  | { kind: 'internal-error'; reason: string }
  /**
   * A condition that the facts made false, with the facts that made it so. `explain` is the rule's own words for it
   * with the values filled in. In a guard check, `decisive` says whether it stopped the branch that came closest to a
   * proof (the model reads those) or was incidental on the way (another rule alternative; the developer reads it).
   */
  | { kind: 'condition'; goal: string; condition: string; line?: number; facts: string[]; explain?: string; decisive?: boolean; chain?: ProvenanceLink[] };

/** Outcome of a proof search: `proved`, `blocked` (something can unblock it) or `failed` (the facts say no). */
export type ProofStatus = 'proved' | 'blocked' | 'failed';

/** One way a query holds: values of its variables and the proof. */
export interface QueryAnswer {
  bindings: Record<string, Value>;
  derivation: Derivation;
}

/** Result of `sentinel.query(goal)`. */
export interface QueryResult {
  status: ProofStatus;
  /** The goal as queried. */
  goal: string;
  /** Every distinct answer found (up to the query's limit); empty unless `proved`. */
  answers: QueryAnswer[];
  /** Empty when `proved`. */
  blockers: Blocker[];
  /** Short, actionable text for the model. */
  text: string;
  /** Fuller text for the developer: rule lines and derivations. */
  message: string;
}

/** Result of `sentinel.check(tool, args)`. */
export interface CheckResult {
  allowed: boolean;
  status: ProofStatus;
  tool: string;
  args: Record<string, unknown>;
  /** The proof that allowed the call, when one was needed and found. */
  derivation?: Derivation;
  /** Empty when allowed. */
  blockers: Blocker[];
  /** Short, actionable text for the model: why not, and what would make it allowed. */
  text: string;
  /** Fuller text for the developer. */
  message: string;
}
