import { andThen } from '../async/index.js';
import type { Clock } from '../clock/index.js';
import { canonicalJson, fitsPattern, formatFact, type FactStore, type StoredFact } from '../facts/index.js';
import type { Value } from '../rules/index.js';
import { compareValues, timestampMs } from './builtins.js';
import type { CClause, CLiteral, CompiledRulebase, PrefetchTemplate } from './compile.js';
import { DataFetcher, fetchKey, type DataFetcherOptions, type DataGuardProver, type FetchOutcome } from './data-fetcher.js';
import { collectFactTexts, factsMentioning, snapshotProof, type ProofNode } from './proof-tree.js';
import { renderCall, renderLiteral } from './render.js';
import type { Blocker, Derivation, DerivationKind } from './result.js';
import { each, finallyDo, type Continuation, type Step } from './step.js';
import { Environment, UNBOUND_CONTEXT, type RTerm } from './terms.js';
import { variantKey } from './variant.js';
import type { ProvenanceLink } from './provenance-relations.js';
import { confirmationRef, renderConfirmedCall } from './confirmation.js';
import { SAID } from './workflow-states.js';
import type { AskableDeclaration } from '../rules/index.js';
import { DEFAULT_CONDITION_JUDGE_TIMEOUT_MS, type ConditionJudge } from './judge.js';
import { isProvenanceRelation, solveProvenanceRelation, type ProvenanceContext } from './provenance-solve.js';

/** Everything one top-level call (a query or a check) shares with the nested proofs of data tools' guards. */
export interface SearchContext {
  compiled: CompiledRulebase;
  store: FactStore;
  clock: Clock;
  maxDepth: number;
  maxSteps: number;
  /** This call's data tool calls, shared by its searches. */
  fetcher: DataFetcher;
  /** Data tool calls whose guard is being proved right now: meeting one again is a cycle. */
  guardStack: ReadonlySet<string>;
  /** Provenance: the trust default, the judge of `judged(Name)` and this call's verdicts (asked once per check). */
  provenance: ProvenanceContext;
}

/** What a top-level call needs to search: the rulebase, the store, the data tools and the limits. */
export type SearchOptions = DataFetcherOptions & { maxDepth: number; maxSteps: number; judge?: ConditionJudge | undefined; judgeTimeoutMs?: number };

/** The context of one top-level call; a data tool's guard is proved by a nested search in the same context. */
export function createSearchContext(options: SearchOptions): SearchContext {
  const proveGuard: DataGuardProver = async (tool, guards, args, guardStack) => {
    const outcome = await new Search({ ...context, guardStack }).proveGuard(tool, guards, args);
    return { allowed: outcome.answers.length > 0, blockers: outcome.blockers };
  };
  const context: SearchContext = {
    compiled: options.compiled,
    store: options.store,
    clock: options.clock,
    maxDepth: options.maxDepth,
    maxSteps: options.maxSteps,
    fetcher: new DataFetcher(options, proveGuard),
    guardStack: new Set(),
    provenance: { judge: options.judge, judgeTimeoutMs: options.judgeTimeoutMs ?? DEFAULT_CONDITION_JUDGE_TIMEOUT_MS, verdicts: new Map() },
  };
  return context;
}

/** One proved answer: the variables' values and the proof tree. */
export interface RawAnswer {
  bindings: Record<string, Value>;
  derivation: Derivation;
  factIds: number[];
  /** Argument values of each top-level condition of the goal (for recording derived conclusions). */
  literalArgs: Array<Value[] | undefined>;
}

/** Everything a search found: answers, the blockers met on the way, and what the answers depended on. */
export interface SearchOutcome {
  answers: RawAnswer[];
  blockers: Blocker[];
  contextsRead: Record<string, number>;
  negatedPredicates: Record<string, number>;
  /** The proof read the clock (`hours_since`), so it must not be cached as a derived fact. */
  readClock: boolean;
}

/**
 * One backtracking proof search. Depth-first over clauses in file order, continuation-passing so it stays
 * synchronous (and fast) while every fact is cached and only awaits when a tool must be called. Nothing survives
 * the search except what it wrote to the fact store.
 */
export class Search {
  private readonly env: Environment;
  private readonly root: ProofNode = { by: 'goal', base: 0, children: [] };
  private steps = 0;
  private stopped = false;
  private negationDepth = 0;
  /** Counts events that make a failed search inconclusive (a fetch error, an unbound context, a limit). */
  private inconclusive = 0;
  private readClock = false;
  private readonly assumptions: Array<Blocker & { kind: 'ask' }> = [];
  private readonly ancestors: Array<{ predicate: string; args: readonly RTerm[]; base: number }> = [];
  private readonly blockers = new Map<string, Blocker>();
  private readonly conditions = new Map<string, Blocker & { kind: 'condition' }>();
  private readonly blockedSolutions: Array<Array<Blocker & { kind: 'ask' }>> = [];
  private readonly answers: RawAnswer[] = [];
  private readonly answerKeys = new Set<string>();
  private readonly contextsRead = new Map<string, number>();
  private readonly negatedPredicates = new Map<string, number>();
  private goalLiterals: readonly CLiteral[] = [];
  /** The clauses whose bodies are being proved, with their frames, as pairs: where to look for calls to prefetch. */
  private readonly entered: Array<CClause | number> = [];
  private goalBase = 0;
  /** The call a guard search is about: what call-bound confirmations are checked against. */
  private call: { tool: string; args: Record<string, unknown> } | undefined;
  private readonly refs = new Map<AskableDeclaration, string>();
  /**
   * Where a guard search is: which guard clause, and which of its top-level conditions it is proving. A failure is
   * tagged with it, so the refusal can lead with the failures of the branch that came closest to a proof.
   */
  private clauseIndex = -1;
  private topBody: readonly CLiteral[] | undefined;
  private topBase = 0;
  private reach = 0;
  /** The furthest top-level condition each guard clause reached. */
  private readonly clauseReach: number[] = [];
  private readonly conditionReach = new Map<string, { clause: number; index: number }>();

  /**
   * @param explain Whether to render failed conditions. A proof that succeeds never reports them, so the sentinel
   * searches without (fast) and searches again with them only when the first search did not prove the goal.
   */
  constructor(
    private readonly context: SearchContext,
    private readonly explain = true,
  ) {
    this.env = new Environment((name) => this.readContext(name));
  }

  /** Proves a goal clause (a query body); collects up to `maxAnswers` distinct answers over `answerVariables`. */
  async proveGoal(goal: CClause, text: string, maxAnswers: number): Promise<SearchOutcome> {
    this.root.goal = text;
    const base = this.env.allocate(goal.variableCount);
    this.goalLiterals = goal.body;
    this.goalBase = base;
    const named = goal.variableNames.flatMap((name, index) => (name.startsWith('_') ? [] : [[name, index] as const]));
    const onProof = () => this.onProof(() => Object.fromEntries(named.map(([name, index]) => [name, this.env.value({ kind: 'var', index, name }, base) ?? null])) as Record<string, Value>, maxAnswers);
    await this.enterBody(goal, base, this.root, 0, onProof);
    return this.outcome();
  }

  /**
   * Proves that a tool call is allowed: some guard of the tool has a head that matches the arguments and a body
   * that holds. Guards are alternatives, tried in file order.
   */
  async proveGuard(tool: string, clauses: readonly CClause[], args: Record<string, unknown>): Promise<SearchOutcome> {
    const source = this.context.compiled.rulebase.source;
    this.call = { tool, args };
    let clauseIndex = -1;
    await each(clauses, (clause) => {
      this.clauseIndex = ++clauseIndex;
      this.topBody = undefined; // set once the head matched: a mismatch of the head is not a body condition
      this.reach = 0;
      this.clauseReach[clauseIndex] = 0;
      const mark = this.env.mark();
      const base = this.env.allocate(clause.variableCount);
      const params = clause.params ?? [];
      for (let index = 0; index < params.length; index++) {
        const name = params[index]!;
        if (!Object.hasOwn(args, name) || args[name] === undefined) {
          this.blockers.set(`missing:${name}`, { kind: 'missing-argument', parameter: name });
          this.env.undo(mark);
          return false;
        }
        if (!this.env.unifyWithValue(clause.head[index]!, base, args[name] as Value)) {
          if (this.explain) this.recordCondition(`${name}: ${this.env.render(clause.head[index]!, base)}`, { text: `${tool}(${name}: ...) at line ${clause.line}`, line: clause.line }, base, [JSON.stringify(args[name])]);
          this.env.undo(mark);
          return false;
        }
      }
      this.topBody = clause.body;
      this.topBase = base;
      const node: ProofNode = { by: 'guard', base, goal: `${tool}(${params.map((name) => `${name}: ${JSON.stringify(args[name])}`).join(', ')})`, source: `${source}:${clause.line}`, children: [] };
      this.root.children.push(node);
      const step = this.enterBody(clause, base, node, 0, () => this.onProof(() => ({}), 1));
      return finallyDo(step, () => {
        this.root.children.length = 0;
        this.env.undo(mark);
      });
    });
    return this.outcome();
  }

  private onProof(bindings: () => Record<string, Value>, maxAnswers: number): Step {
    if (this.assumptions.length > 0) {
      this.blockedSolutions.push([...this.assumptions]);
      return false;
    }
    const values = bindings();
    const key = canonicalJson(values);
    if (!this.answerKeys.has(key)) {
      this.answerKeys.add(key);
      const factIds: number[] = [];
      const derivation = snapshotProof(this.env, this.root.children.length === 1 && this.root.children[0]!.by === 'guard' ? this.root.children[0]! : this.root, factIds);
      const literalArgs = this.goalLiterals.map((literal) => {
        if (literal.kind !== 'rule' && literal.kind !== 'data' && literal.kind !== 'askable') return undefined;
        const args = literal.args.map((arg) => this.env.value(arg, this.goalBase));
        return args.every((arg): arg is Value => arg !== undefined && arg !== UNBOUND_CONTEXT) ? args : undefined;
      });
      this.answers.push({ bindings: values, derivation, factIds, literalArgs });
    }
    return this.answers.length >= maxAnswers;
  }

  private outcome(): SearchOutcome {
    const blockers: Blocker[] = [];
    if (this.answers.length === 0) {
      // One question per askable and values, however many rules (with differently named variables) asked it.
      const asks = new Map<string, Blocker>();
      for (const solution of this.blockedSolutions) for (const ask of solution) asks.set(`${ask.predicate}(${canonicalJson(ask.args)})`, ask);
      blockers.push(...asks.values(), ...this.blockers.values());
      blockers.push(...this.rankedConditions());
    }
    return {
      answers: this.answers,
      blockers,
      contextsRead: Object.fromEntries(this.contextsRead),
      negatedPredicates: Object.fromEntries(this.negatedPredicates),
      readClock: this.readClock,
    };
  }

  /**
   * Failed conditions, the decisive ones first: in a guard search, those that stopped the branch that came closest to
   * a proof (the guard clause that proved the most of its top-level conditions) at the furthest point it reached.
   * Failures on the way there (a rule alternative that did not apply) are incidental: `decisive: false`, kept for the
   * developer, left out of the model's text. Outside a guard search (a query) nothing is ranked.
   */
  private rankedConditions(): Blocker[] {
    const conditions = [...this.conditions.entries()];
    if (this.clauseReach.length === 0) return conditions.map(([, blocker]) => blocker);
    const furthest = Math.max(...this.clauseReach);
    const isDecisive = (key: string) => {
      const at = this.conditionReach.get(key);
      return at !== undefined && this.clauseReach[at.clause] === furthest && at.index === furthest;
    };
    // Only head mismatches (no clause entered its body): nothing to rank them against.
    if (!conditions.some(([key]) => this.conditionReach.has(key))) return conditions.map(([, blocker]) => blocker);
    const ranked = conditions.map(([key, blocker]) => ({ ...blocker, decisive: isDecisive(key) }));
    return [...ranked.filter((blocker) => blocker.decisive), ...ranked.filter((blocker) => !blocker.decisive)];
  }

  /** The reference of the call being guarded, for a call-bound confirmation; undefined outside a guard search. */
  private refFor(declaration: AskableDeclaration): string | undefined {
    if (!this.call || declaration.confirms?.tool !== this.call.tool) return undefined;
    let ref = this.refs.get(declaration);
    if (ref === undefined) this.refs.set(declaration, (ref = confirmationRef(declaration, this.call.tool, this.call.args)));
    return ref;
  }

  private readContext(name: string): Value | typeof UNBOUND_CONTEXT {
    const binding = this.context.store.context(name);
    if (binding === undefined) {
      const declaration = this.context.compiled.rulebase.contexts.get(name);
      this.blockers.set(`context:${name}`, { kind: 'bind-context', name, ...(declaration?.description ? { description: declaration.description } : {}) });
      this.inconclusive++;
      return UNBOUND_CONTEXT;
    }
    this.contextsRead.set(name, binding.version);
    return binding.value;
  }

  private enterBody(clause: CClause, base: number, parent: ProofNode, depth: number, k: Continuation): Step {
    if (clause.prefetch.length === 0) return this.solveGoals(clause.body, 0, base, parent, depth, k);
    this.entered.push(clause, base);
    return finallyDo(this.solveGoals(clause.body, 0, base, parent, depth, k), () => (this.entered.length -= 2));
  }

  private solveGoals(body: readonly CLiteral[], index: number, base: number, parent: ProofNode, depth: number, k: Continuation): Step {
    if (body === this.topBody) {
      // A guard clause's own conditions: note how far the clause got, and restore it when this one is retried.
      const previous = this.reach;
      this.reach = index;
      if (index > this.clauseReach[this.clauseIndex]!) this.clauseReach[this.clauseIndex] = index;
      const step = index === body.length ? k() : this.solve(body[index]!, base, parent, depth, () => this.solveGoals(body, index + 1, base, parent, depth, k));
      return finallyDo(step, () => (this.reach = previous));
    }
    if (index === body.length) return k();
    return this.solve(body[index]!, base, parent, depth, () => this.solveGoals(body, index + 1, base, parent, depth, k));
  }

  private solve(literal: CLiteral, base: number, parent: ProofNode, depth: number, k: Continuation): Step {
    if (this.stopped) return true;
    if (++this.steps > this.context.maxSteps) {
      this.blockers.set('limit:steps', { kind: 'limit', reason: `the proof search gave up after ${this.context.maxSteps} steps`, goal: this.env.render({ kind: 'constant', value: literal.text }, 0) });
      this.inconclusive++;
      this.stopped = true;
      return true;
    }
    switch (literal.kind) {
      case 'rule':
        return this.solveRule(literal, base, parent, depth, k);
      case 'data':
        return this.solveData(literal, base, parent, k);
      case 'askable':
        return this.solveAskable(literal, base, parent, k);
      case 'builtin':
        return this.solveBuiltin(literal, base, parent, k);
      case 'compare':
        return this.solveCompare(literal, base, parent, k);
      case 'member':
        return this.solveMember(literal, base, parent, k);
      case 'not':
        return this.solveNot(literal, base, parent, depth, k);
    }
  }

  private solveRule(literal: CLiteral & { kind: 'rule' }, base: number, parent: ProofNode, depth: number, k: Continuation): Step {
    if (depth >= this.context.maxDepth) {
      this.blockers.set(`limit:depth:${literal.predicate}`, { kind: 'limit', reason: `the proof went deeper than ${this.context.maxDepth} rules`, goal: renderCall(this.env, literal, base) });
      this.inconclusive++;
      return false;
    }
    // A goal that is a variant of one of its own ancestors cannot lead to a proof the ancestor would not find by
    // another clause, so it is cut; this is what makes `p :- p.` and left recursion terminate.
    if (this.isVariantOfAncestor(literal, base)) {
      this.blockers.set(`limit:cycle:${literal.predicate}`, { kind: 'limit', reason: `the proof of ${literal.predicate} depends on itself (recursion cut)`, goal: renderCall(this.env, literal, base) });
      this.inconclusive++;
      return false;
    }
    const clauses = this.context.compiled.rules.get(literal.predicate) ?? [];
    const source = this.context.compiled.rulebase.source;
    const entry = { predicate: literal.predicate, args: literal.args, base };
    const node: ProofNode = { by: 'rule', literal, base, children: [] };
    const childMark = parent.children.length;
    parent.children.push(node);
    this.ancestors.push(entry);
    // The ancestor entry must not be seen by the goals after this one, which run inside the continuation.
    const afterBody: Continuation = () => {
      this.ancestors.pop();
      return finallyDo(k(), () => this.ancestors.push(entry));
    };
    const step = each(clauses, (clause) => {
      const mark = this.env.mark();
      const clauseBase = this.env.allocate(clause.variableCount);
      for (let index = 0; index < clause.head.length; index++) {
        if (!this.env.unify(literal.args[index]!, base, clause.head[index]!, clauseBase)) {
          this.env.undo(mark);
          return false;
        }
      }
      node.children.length = 0;
      node.source = `${source}:${clause.line}`;
      return finallyDo(this.enterBody(clause, clauseBase, node, depth + 1, afterBody), () => this.env.undo(mark));
    });
    return finallyDo(step, () => {
      this.ancestors.pop();
      parent.children.length = childMark;
    });
  }

  private isVariantOfAncestor(literal: CLiteral & { kind: 'rule' }, base: number): boolean {
    let key: string | undefined;
    for (const ancestor of this.ancestors) {
      if (ancestor.predicate !== literal.predicate) continue;
      key ??= variantKey(this.env, literal.args, base);
      if (variantKey(this.env, ancestor.args, ancestor.base) === key) return true;
    }
    return false;
  }

  private solveData(literal: CLiteral & { kind: 'data' }, base: number, parent: ProofNode, k: Continuation): Step {
    const toolArgs: Record<string, Value> = {};
    let ground = true;
    for (const [name, term] of literal.toolArgs) {
      const value = this.env.value(term, base);
      if (value === UNBOUND_CONTEXT) return false;
      if (value === undefined) ground = false;
      else toolArgs[name] = value;
    }
    if (!ground) return this.matchFacts(literal, base, parent, k, `needs ${this.unboundInputs(literal, base)} to call ${literal.declaration.tool}`);
    const outcome = this.context.fetcher.ensure(literal.declaration, toolArgs, this.context.guardStack);
    if (!(outcome instanceof Promise)) return this.afterFetch(literal, toolArgs, outcome, base, parent, k);
    // The first call that has to wait starts, with it, every other call the clauses being proved can already name.
    return Promise.all([outcome, this.prefetch()]).then(([settled]) => this.afterFetch(literal, toolArgs, settled, base, parent, k));
  }

  private afterFetch(literal: CLiteral & { kind: 'data' }, toolArgs: Record<string, Value>, outcome: FetchOutcome, base: number, parent: ProofNode, k: Continuation): Step {
    if (!outcome.ok) {
      this.recordFetchFailure(literal.declaration.tool, toolArgs, outcome);
      return false;
    }
    const shapeError = outcome.errors?.[literal.predicate];
    if (shapeError !== undefined) {
      this.recordFetchFailure(literal.declaration.tool, toolArgs, { ok: false, reason: shapeError });
      return false;
    }
    return this.matchFacts(literal, base, parent, k);
  }

  private unboundInputs(literal: CLiteral & { kind: 'data' }, base: number): string {
    return literal.inputs
      .filter((position) => this.env.value(literal.args[position]!, base) === undefined)
      .map((position) => literal.declaration.params[position]!)
      .join(', ');
  }

  private recordFetchFailure(tool: string, args: Record<string, Value>, outcome: FetchOutcome & { ok: false }): void {
    this.blockers.set(`fetch:${fetchKey(tool, args)}:${outcome.reason}`, { kind: 'fetch-failed', tool, args, reason: outcome.reason });
    for (const blocker of outcome.blockers ?? []) this.blockers.set(`inner:${JSON.stringify(blocker)}`, blocker);
    this.inconclusive++;
  }

  /**
   * Proves a data or askable condition from the store's facts, one branch per matching fact. `unboundReason` says
   * why a data condition could not fetch (an input is unbound): it is then matched against what is already known.
   */
  private matchFacts(literal: CLiteral & { kind: 'data' | 'askable' }, base: number, parent: ProofNode, k: Continuation, unboundReason?: string): Step {
    const pattern: Array<Value | undefined> = [];
    for (const arg of literal.args) {
      const value = this.env.value(arg, base);
      if (value === UNBOUND_CONTEXT) return false;
      pattern.push(value);
    }
    if (literal.kind === 'askable' && literal.declaration.confirms) {
      // A call-bound confirmation holds only for the call it was given for: its last argument is that call's reference.
      const ref = this.refFor(literal.declaration);
      if (ref === undefined) return false;
      pattern.push(ref);
    }
    const store = this.context.store;
    if (this.negationDepth > 0) this.negatedPredicates.set(literal.predicate, store.predicateVersion(literal.predicate));
    let facts: readonly StoredFact[];
    if (literal.kind === 'data' && unboundReason === undefined) {
      // Everything the fetch said for these inputs: one lookup serves both the contradiction check and the match.
      const inputs = this.inputPattern(literal, pattern);
      const sameInputs = store.match(literal.predicate, inputs);
      if (this.isContradiction(literal, inputs, sameInputs)) return false;
      facts = inputs === pattern ? sameInputs : sameInputs.filter((fact) => fitsPattern(fact.args, pattern));
      if (facts.length === 0) {
        if (this.explain) this.recordCondition(renderCall(this.env, literal, base), literal, base, sameInputs.map((fact) => formatFact(fact.predicate, fact.args)));
        return false;
      }
    } else {
      facts = store.match(literal.predicate, pattern);
      if (facts.length === 0) {
        if (literal.kind === 'data' && this.explain) this.recordCondition(renderCall(this.env, literal, base), literal, base, [], unboundReason);
        return false;
      }
    }
    const childMark = parent.children.length;
    return each(facts, (fact) => {
      const mark = this.env.mark();
      for (let index = 0; index < literal.args.length; index++) {
        if (!this.env.unifyWithValue(literal.args[index]!, base, fact.args[index]!)) {
          this.env.undo(mark);
          return false;
        }
      }
      parent.children.push({ by: literal.kind === 'data' ? 'fact' : 'askable', fact, base, source: fact.source, children: [] });
      return finallyDo(k(), () => {
        parent.children.length = childMark;
        this.env.undo(mark);
      });
    });
  }

  /**
   * The pattern with only the tool's inputs kept: every fact the fetch for these inputs gave. The pattern itself when
   * it binds nothing else.
   */
  private inputPattern(literal: CLiteral & { kind: 'data' }, pattern: ReadonlyArray<Value | undefined>): ReadonlyArray<Value | undefined> {
    if (pattern.every((value, index) => value === undefined || literal.inputs.includes(index))) return pattern;
    return pattern.map((value, index) => (literal.inputs.includes(index) ? value : undefined));
  }

  /**
   * A data predicate gives one value per input unless its fetch fanned out over a list. Two different values for
   * the same inputs (a stale assertion next to a fresh fetch, two sources disagreeing) block rather than let the
   * solver pick whichever it meets first.
   */
  private isContradiction(literal: CLiteral & { kind: 'data' }, inputs: ReadonlyArray<Value | undefined>, sameInputs: readonly StoredFact[]): boolean {
    if (sameInputs.length < 2 || literal.inputs.length === literal.args.length) return false;
    const fetch = sameInputs[0]!.fetch;
    if (sameInputs.every((fact) => fact.multiple && fact.fetch === fetch)) return false;
    const goal = renderCall(this.env, literal, 0, inputs);
    this.blockers.set(`contradiction:${goal}`, { kind: 'contradiction', goal, facts: sameInputs.map((fact) => `${formatFact(fact.predicate, fact.args)} (${fact.source})`) });
    this.inconclusive++;
    return true;
  }

  private solveAskable(literal: CLiteral & { kind: 'askable' }, base: number, parent: ProofNode, k: Continuation): Step {
    const values: Array<Value | undefined> = [];
    for (const arg of literal.args) {
      const value = this.env.value(arg, base);
      if (value === UNBOUND_CONTEXT) return false;
      values.push(value);
    }
    const store = this.context.store;
    const { declaration } = literal;
    const ref = declaration.confirms ? this.refFor(declaration) : undefined;
    if (declaration.confirms && ref === undefined) return false; // checked at load time: only a guard of its tool uses it
    const confirmed = store.match(literal.predicate, ref === undefined ? values : [...values, ref]);
    if (confirmed.length > 0 || this.negationDepth > 0) return this.matchFacts(literal, base, parent, k);
    // Not confirmed: assume it and go on, so every tool-backed condition after it is checked (and fetched) before
    // the user is asked anything. A proof that needed assumptions is reported as blocked on them.
    const call = ref === undefined ? undefined : renderConfirmedCall(declaration, this.call!.tool, this.call!.args);
    const question = declaration.question.replace(/\{([^}]*)\}/g, (whole, name: string) => {
      if (name === 'call' && call !== undefined) return call;
      const position = declaration.params.indexOf(name);
      const value = position === -1 ? undefined : values[position];
      return value === undefined ? whole : typeof value === 'string' ? value : JSON.stringify(value);
    });
    const goal = renderCall(this.env, literal, base);
    const ask = {
      kind: 'ask' as const,
      predicate: literal.predicate,
      args: ref === undefined ? values.map((value) => value ?? null) : [...values.map((value) => value ?? null), ref],
      goal: ref === undefined ? goal : `${goal.endsWith(')') ? goal.slice(0, -1) + ', ' : `${goal}(`}${JSON.stringify(ref)})`,
      question,
      ...(call !== undefined ? { call } : {}),
    };
    return this.assume(ask, parent, literal, base, k);
  }

  /** Goes on as if the user had said yes to `ask`, which the proof then waits on; undone on backtracking. */
  private assume(ask: Blocker & { kind: 'ask' }, parent: ProofNode, literal: CLiteral, base: number, k: Continuation): Step {
    this.assumptions.push(ask);
    const childMark = parent.children.length;
    parent.children.push({ by: 'askable', literal, base, source: 'unconfirmed', children: [] });
    return finallyDo(k(), () => {
      this.assumptions.pop();
      parent.children.length = childMark;
    });
  }

  private solveBuiltin(literal: CLiteral & { kind: 'builtin' }, base: number, parent: ProofNode, k: Continuation): Step {
    let result: Value | undefined;
    switch (literal.predicate) {
      case 'true':
        return this.succeed(literal, base, parent, 'builtin', k);
      case 'false':
        return false;
      case 'said': {
        // The workflow's states only grow, but a conclusion read from them is not cached: it is cheap to read again.
        this.readClock = true;
        const state = this.env.value(literal.args[0]!, base);
        if (typeof state === 'string' && this.context.store.has(SAID, [state])) return this.succeed(literal, base, parent, 'builtin', k);
        if (this.explain) this.recordCondition(renderCall(this.env, literal, base), literal, base, []);
        return false;
      }
      case 'length': {
        const list = this.env.value(literal.args[0]!, base);
        if (!Array.isArray(list)) {
          if (this.explain) this.recordCondition(renderCall(this.env, literal, base), literal, base, [], list === undefined ? 'the list is not bound' : 'not a list');
          return false;
        }
        result = list.length;
        break;
      }
      case 'hours_since': {
        const time = timestampMs(this.env.value(literal.args[0]!, base));
        if (time === undefined) {
          if (this.explain) this.recordCondition(renderCall(this.env, literal, base), literal, base, [], 'not an ISO timestamp');
          return false;
        }
        this.readClock = true;
        result = (this.context.clock.now() - time) / 3_600_000;
        break;
      }
      default:
        if (isProvenanceRelation(literal.predicate)) return solveProvenanceRelation(this.provenanceHooks, literal, base, parent, k);
        return false;
    }
    const mark = this.env.mark();
    if (!this.env.unifyWithValue(literal.args[1]!, base, result)) {
      if (this.explain) this.recordCondition(renderCall(this.env, literal, base), literal, base, []);
      this.env.undo(mark);
      return false;
    }
    return finallyDo(this.succeed(literal, base, parent, 'builtin', k), () => this.env.undo(mark));
  }

  private solveCompare(literal: CLiteral & { kind: 'compare' }, base: number, parent: ProofNode, k: Continuation): Step {
    if (literal.operator === '=') {
      const mark = this.env.mark();
      const inconclusiveBefore = this.inconclusive;
      if (!this.env.unify(literal.left, base, literal.right, base)) {
        this.env.undo(mark);
        // An unbound context is already reported as such; the comparison it broke adds nothing.
        if (this.inconclusive === inconclusiveBefore) this.recordFailedComparison(literal, base);
        return false;
      }
      return finallyDo(this.succeed(literal, base, parent, 'comparison', k), () => this.env.undo(mark));
    }
    const left = this.env.value(literal.left, base);
    const right = this.env.value(literal.right, base);
    if (left === UNBOUND_CONTEXT || right === UNBOUND_CONTEXT) return false;
    if (left === undefined || right === undefined) {
      if (this.explain) this.recordCondition(renderLiteral(this.env, literal, base), literal, base, [], 'a variable in it is not bound');
      return false;
    }
    if (!compareValues(literal.operator, left, right)) {
      this.recordFailedComparison(literal, base, [left, right]);
      return false;
    }
    return this.succeed(literal, base, parent, 'comparison', k);
  }

  private recordFailedComparison(literal: CLiteral & { kind: 'compare' }, base: number, values?: Value[]): void {
    if (!this.explain || this.negationDepth > 0) return;
    const operands = values ?? [this.env.value(literal.left, base), this.env.value(literal.right, base)].filter((value): value is Value => value !== undefined && value !== UNBOUND_CONTEXT);
    if (this.explain) this.recordCondition(renderLiteral(this.env, literal, base), literal, base, factsMentioning(this.root, operands));
  }

  private solveMember(literal: CLiteral & { kind: 'member' }, base: number, parent: ProofNode, k: Continuation): Step {
    this.env.deref(literal.list, base);
    const listTerm = this.env.derefTerm;
    const listBase = this.env.derefBase;
    let items: ReadonlyArray<{ term: RTerm; base: number }>;
    if (listTerm.kind === 'list') {
      items = listTerm.items.map((term) => ({ term, base: listBase }));
    } else {
      const value = this.env.value(listTerm, listBase);
      if (value === UNBOUND_CONTEXT) return false;
      if (!Array.isArray(value)) {
        if (this.explain) this.recordCondition(renderLiteral(this.env, literal, base), literal, base, [], value === undefined ? 'the list is not bound' : 'not a list');
        return false;
      }
      items = value.map((item) => ({ term: { kind: 'constant', value: item as Value } as RTerm, base: 0 }));
    }
    let matchedAny = false;
    const step = each(items, (item) => {
      const mark = this.env.mark();
      if (!this.env.unify(literal.element, base, item.term, item.base)) {
        this.env.undo(mark);
        return false;
      }
      matchedAny = true;
      return finallyDo(this.succeed(literal, base, parent, 'membership', k), () => this.env.undo(mark));
    });
    return finallyDo(step, () => {
      if (!matchedAny && this.explain) this.recordCondition(renderLiteral(this.env, literal, base), literal, base, []);
    });
  }

  private solveNot(literal: CLiteral & { kind: 'not' }, base: number, parent: ProofNode, depth: number, k: Continuation): Step {
    const inner = literal.goal;
    if (!this.isGround(inner, base)) {
      if (this.explain) this.recordCondition(renderLiteral(this.env, literal, base), literal, base, [], 'negation needs a ground goal; a variable in it is not bound');
      return false;
    }
    const inconclusiveBefore = this.inconclusive;
    const scratch: ProofNode = { by: 'goal', base, children: [] };
    let proof: Derivation[] = [];
    let chain: ProvenanceLink[] = [];
    this.negationDepth++;
    const step = this.solve(inner, base, scratch, depth + 1, () => {
      // Snapshot now: the nodes are reused and the bindings undone as the inner search unwinds.
      proof = scratch.children.map((node) => snapshotProof(this.env, node, []));
      chain = scratch.children.flatMap((node) => node.chain ?? []);
      return true;
    });
    return andThen(
      finallyDo(step, () => this.negationDepth--),
      (proved) => {
        if (this.stopped) return true;
        if (proved) {
          if (this.explain) this.recordCondition(renderLiteral(this.env, literal, base), literal, base, proof.flatMap(collectFactTexts), undefined, chain);
          return false;
        }
        // The inner goal was not proved, but only because something was missing: 'not' cannot conclude it is false.
        if (this.inconclusive > inconclusiveBefore) return false;
        return this.succeed(literal, base, parent, 'negation', k);
      },
    );
  }

  private isGround(literal: CLiteral, base: number): boolean {
    const terms =
      literal.kind === 'compare' ? [literal.left, literal.right] : literal.kind === 'member' ? [literal.element, literal.list] : literal.kind === 'not' ? [] : literal.args;
    if (literal.kind === 'not') return this.isGround(literal.goal, base);
    return terms.every((term) => {
      const value = this.env.value(term, base);
      return value !== undefined;
    });
  }

  private succeed(literal: CLiteral, base: number, parent: ProofNode, by: DerivationKind, k: Continuation): Step {
    const childMark = parent.children.length;
    parent.children.push({ by, literal, base, children: [] });
    return finallyDo(k(), () => {
      parent.children.length = childMark;
    });
  }

  private recordCondition(goal: string, where: Pick<CLiteral, 'text' | 'line' | 'explain'>, base: number, facts: string[], reason?: string, chain?: readonly ProvenanceLink[]): void {
    if (this.negationDepth > 0 || this.conditions.size >= 50) return;
    const key = `${goal}|${reason ?? ''}`;
    if (this.conditions.has(key)) return;
    // A failure deep inside a guard condition the author explained (`own_reservation(R) "..."`) reads in those words.
    let explain = where.explain ? this.explanation(where.explain, base) : undefined;
    if (this.topBody !== undefined) {
      this.conditionReach.set(key, { clause: this.clauseIndex, index: this.reach });
      const top = this.topBody[this.reach];
      if (explain === undefined && top?.explain) explain = this.explanation(top.explain, this.topBase);
    }
    this.conditions.set(key, {
      kind: 'condition',
      goal: reason ? `${goal} (${reason})` : goal,
      condition: where.text,
      ...(where.line ? { line: where.line } : {}),
      facts,
      ...(explain !== undefined ? { explain } : {}),
      ...(chain && chain.length > 0 ? { chain: [...chain] } : {}),
    });
  }

  /** The author's words for a condition, each `{Var}` replaced by its value (plain, as a person reads it). */
  private explanation(pieces: ReadonlyArray<string | RTerm>, base: number): string {
    let text = '';
    for (const piece of pieces) {
      if (typeof piece === 'string') {
        text += piece;
        continue;
      }
      const value = this.env.value(piece, base);
      text += value === undefined || value === UNBOUND_CONTEXT ? '(unknown)' : typeof value === 'string' ? value : formatFact('', [value]).slice(1, -1);
    }
    return text;
  }


  /** What the provenance relations read and write of this search: kept in one object, their code lives apart. */
  private get provenanceHooks() {
    return {
      env: this.env,
      context: this.context,
      call: this.call,
      explain: this.explain,
      negated: this.negationDepth > 0,
      succeed: (literal: CLiteral, base: number, parent: ProofNode, node: ProofNode, k: Continuation): Step => {
        const childMark = parent.children.length;
        parent.children.push(node);
        return finallyDo(k(), () => {
          parent.children.length = childMark;
        });
      },
      fail: (literal: CLiteral, base: number, facts: string[], reason?: string, chain?: readonly ProvenanceLink[]) => {
        if (this.explain) this.recordCondition(renderLiteral(this.env, literal, base), literal, base, facts, reason, chain);
      },
      assume: (ask: Blocker & { kind: 'ask' }, parent: ProofNode, literal: CLiteral, base: number, k: Continuation): Step => this.assume(ask, parent, literal, base, k),
    };
  }

  // ---- data tools ----

  /**
   * Starts every data call the clauses being proved can already name, so independent tools run concurrently instead
   * of one after another. Only called once some call has to wait: while every fact is cached, nothing is prefetched.
   */
  private prefetch(): Promise<unknown> | undefined {
    let pending: Array<Promise<FetchOutcome>> | undefined;
    for (let index = 0; index < this.entered.length; index += 2) {
      const clause = this.entered[index] as CClause;
      const base = this.entered[index + 1] as number;
      for (const template of clause.prefetch) {
        const args = this.groundArgs(template, base);
        if (!args) continue;
        const outcome = this.context.fetcher.ensure(template.declaration, args, this.context.guardStack);
        if (outcome instanceof Promise) (pending ??= []).push(outcome);
      }
    }
    return pending ? Promise.all(pending) : undefined;
  }

  private groundArgs(template: PrefetchTemplate, base: number): Record<string, Value> | undefined {
    const args: Record<string, Value> = {};
    for (const [name, term] of template.args) {
      const value = this.peekValue(term, base);
      if (value === undefined) return undefined;
      args[name] = value;
    }
    return args;
  }

  /** A term's value without reporting unbound contexts: prefetching is speculative and must not create blockers. */
  private peekValue(term: RTerm, base: number): Value | undefined {
    if (term.kind === 'context') return this.context.store.context(term.name)?.value;
    const value = this.env.value(term, base);
    return value === UNBOUND_CONTEXT ? undefined : value;
  }

}

type CompiledDataDeclaration = CLiteral & { kind: 'data' } extends { declaration: infer D } ? D : never;
