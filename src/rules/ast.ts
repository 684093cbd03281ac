/**
 * The rule language's syntax tree. Every node carries the position it was read from, so load-time checks and
 * runtime blockers can point at the line a policy author wrote.
 */

/** A 1-based line and column in the rulebase text. */
export interface Position {
  line: number;
  column: number;
}

/**
 * A ground value: what facts hold and what tool arguments and results are made of.
 * Atoms and quoted strings are both strings at run time, so `business` and `"business"` are the same value:
 * JSON tool results carry strings, and rules read better with bare words.
 */
export type Value = string | number | boolean | null | readonly Value[] | { readonly [key: string]: Value };

/** Arithmetic operators allowed inside terms. */
export type ArithmeticOperator = '+' | '-' | '*' | '/';

/** A term as written: a constant, a variable, a context variable, a list, an object pattern or arithmetic. */
export type TermNode =
  | { kind: 'constant'; value: string | number | boolean | null; pos: Position; quoted?: boolean }
  | { kind: 'var'; name: string; pos: Position }
  | { kind: 'context'; name: string; pos: Position }
  | { kind: 'list'; items: TermNode[]; pos: Position }
  | { kind: 'object'; entries: Array<{ key: string; value: TermNode }>; pos: Position }
  | { kind: 'arithmetic'; operator: ArithmeticOperator; left: TermNode; right: TermNode; pos: Position };

/** Comparison built-ins. `=` unifies (evaluating arithmetic first); the others compare ground values. */
export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * One condition in a rule body. `explain` is the author's words for it, written as a string after the condition
 * (`Kind in [gift_card, credit_card] "a flight change must be paid with a gift card or a credit card"`): a refusal
 * that this condition decides says it in these words, `{Var}` filled in with the value that failed.
 */
export type LiteralNode = (
  | { kind: 'call'; predicate: string; args: TermNode[]; pos: Position }
  | { kind: 'compare'; operator: ComparisonOperator; left: TermNode; right: TermNode; pos: Position }
  | { kind: 'member'; element: TermNode; list: TermNode; pos: Position }
  | { kind: 'not'; goal: LiteralNode; pos: Position }
) & { explain?: string };

/** `context name "description"`: a rebindable reference such as the booking the customer is talking about. */
export interface ContextDeclaration {
  kind: 'context';
  name: string;
  description?: string;
  pos: Position;
}

/** One `Var = $.json.path` output of a data declaration. */
export interface DataOutput {
  variable: string;
  path: string;
  pos: Position;
  /**
   * `-> S = $.status default active`: the value when the record has no such field. Without it, a missing field is
   * absent (no fact: the condition is false, `not` holds), never a fetch failure.
   */
  default?: string | number | boolean | null;
}

/** `data pred(Args) from tool(param: Var, ...) -> Var = $.path, ... ttl 60s`. */
export interface DataDeclaration {
  kind: 'data';
  predicate: string;
  params: string[];
  tool: string;
  toolArgs: Array<{ name: string; value: TermNode }>;
  outputs: DataOutput[];
  /** Milliseconds a fetched fact stays valid; undefined means for the whole session. */
  ttlMs?: number;
  pos: Position;
}

/** `askable pred(Args) "question with {Args}"`: established only by the user's answer. */
export interface AskableDeclaration {
  kind: 'askable';
  predicate: string;
  params: string[];
  question: string;
  /**
   * `askable pred(Args) for tool(param, ...) "question"`: a confirmation of one call. A yes is bound to the exact call
   * it was asked for (the tool and its canonical arguments, or only the named ones), proves no other call, and is
   * consumed when that call runs. `params` absent means every argument.
   */
  confirms?: { tool: string; params?: string[]; pos: Position };
  pos: Position;
}

/**
 * `write tool(param: Var, ...) invalidates data_tool(param: Var, ...), ...`: a successful call of `tool` changes what
 * those data tool calls return, so their facts (and every conclusion drawn from them) are dropped and read again.
 */
export interface WriteDeclaration {
  kind: 'write';
  tool: string;
  params: Array<{ name: string; value: TermNode }>;
  invalidates: Array<{ tool: string; args: Array<{ name: string; value: TermNode }>; pos: Position }>;
  pos: Position;
}

/** `rule head :- body.` or `fact head.` (a rule with an empty body). */
export interface RuleDeclaration {
  kind: 'rule';
  predicate: string;
  args: TermNode[];
  body: LiteralNode[];
  pos: Position;
}

/** `guard tool(param: Var, ...) :- body.`: what must be proved before the tool may run. */
export interface GuardDeclaration {
  kind: 'guard';
  tool: string;
  params: Array<{ name: string; value: TermNode }>;
  body: LiteralNode[];
  pos: Position;
}

/**
 * `given tool(param, ...).`: these arguments of the tool come from the user (a passenger's name, an airport the
 * customer named), so strict mode accepts a value found in the user's own words in this conversation.
 */
export interface GivenDeclaration {
  kind: 'given';
  tool: string;
  params: string[];
  pos: Position;
}

/**
 * `strict tool(param, ...).`: strict mode checks these arguments of the tool even where it otherwise would not (a
 * data tool, which only reads; a tool whose guard allows every call): a value nothing in the conversation established
 * is refused before the tool runs, with the read that would establish it.
 */
export interface StrictDeclaration {
  kind: 'strict';
  tool: string;
  params: string[];
  pos: Position;
}

/**
 * `source tool[.key.key] trusted|untrusted|directory`: how far a tool's results (or one field of them, at any list
 * depth) may steer the agent. `directory` is trusted and more: it lists the destinations that exist (users, contacts,
 * channels), so a value it holds is not `from_untrusted` even where untrusted text names it too. `*` as the tool sets
 * the default for every tool not declared.
 */
export interface SourceDeclaration {
  kind: 'source';
  tool: string;
  path: string[];
  trust: 'trusted' | 'untrusted' | 'directory';
  pos: Position;
}

/**
 * `sink tool(param, ...) kind`: these arguments send something somewhere or act on something (a recipient, a
 * payment, an egress URL, a destructive target); provenance refusals name them.
 */
export interface SinkDeclaration {
  kind: 'sink';
  tool: string;
  params: string[];
  sinkKind: string;
  pos: Position;
}

/**
 * `requires said(offered_insurance) "offer travel insurance first" before book_reservation.`: a duty before an action. The condition is added to
 * every guard of the tool, so a call is refused until it holds (`said(State)`: the workflow reached that state).
 */
export interface RequiresDeclaration {
  kind: 'requires';
  goal: LiteralNode;
  tool: string;
  pos: Position;
}

/** Any top-level statement. */
export type Declaration =
  | ContextDeclaration
  | DataDeclaration
  | AskableDeclaration
  | RuleDeclaration
  | GuardDeclaration
  | WriteDeclaration
  | GivenDeclaration
  | StrictDeclaration
  | SourceDeclaration
  | SinkDeclaration
  | RequiresDeclaration;
