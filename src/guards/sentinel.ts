import type { Clock } from '../clock/index.js';
import { didYouMean } from '../diagnostics/index.js';
import { InvalidOptionError, isHostControlFlow } from '../errors/index.js';
import { formatFact, formatValue, type FactStore } from '../facts/index.js';
import {
  BUILTIN_PREDICATES,
  formatLiteralNode,
  parseGoalText,
  resolveGoalContexts,
  trustOfResult,
  type DefaultTrust,
  type LiteralNode,
  type Rulebase,
  type TermNode,
  type Value,
} from '../rules/index.js';
import { compileGoal, compileRulebase } from './compile.js';
import type { Blocker, CheckResult, ProofStatus, QueryResult } from './result.js';
import { SentinelInputError } from './sentinel-input-error.js';
import { systemSleep, type Sleep } from './sleep.js';
import { executorOf, type ToolHandler } from './data-fetcher.js';
import { KnownCalls } from './known-calls.js';
import { createSearchContext, Search, type SearchContext, type SearchOptions, type SearchOutcome } from './solver.js';
import { answersText, blockerMessage, blockerText, DEFAULT_POLICY_TOOL_NAMES, formatDerivation, type PolicyToolNames } from './text.js';
import { ToolCallDeniedError } from './tool-call-denied-error.js';
import { createLifecycle, flushTelemetry } from '../lifecycle/index.js';
import { systemTimers } from '../clock/index.js';
import type { ConditionJudge } from './judge.js';
import { isConfirmationRef } from './confirmation.js';
import { groundFromExchange, isGrounded, ungroundedReason } from './grounded-confirmation.js';
import { findReadHints, renderReadHint } from './read-hints.js';
import { consumeConfirmations, invalidateWrites, readValuesOf, recordDataResult, type ToolOutcome } from './tool-results.js';
import { ATTR, createTelemetry, guardrailMarkers, OPERATION, SPAN, telemetryOptionsOf, type Telemetry, type TelemetryOptions } from '../telemetry/index.js';

/** A tool the sentinel knows: its name, and for data tools the handler the solver calls to fetch facts. */
export interface SentinelTool extends ToolHandler {
  name: string;
}

/** Which literal arguments strict mode checks. */
export interface StrictOptions {
  /** Only these parameter names are checked (strings and numbers); by default every string argument is. */
  parameters?: readonly string[];
}

/** Options of {@link createSentinel}. */
export interface SentinelOptions extends TelemetryOptions {
  rulebase: Rulebase;
  /** The fact store: the session's memory. */
  facts: FactStore;
  /** Tools by name, or a list of named tools. Every data tool the rulebase reads must have an `execute`. */
  tools?: Readonly<Record<string, ToolHandler>> | readonly SentinelTool[];
  /** Where time comes from (TTLs, `hours_since`). @default the fact store's clock */
  clock?: Clock;
  /**
   * Refuse literal arguments that nothing in this conversation established: a booking id the model made up is denied
   * before any rule runs. A value is established when a fact or a context binding holds it, or when it appeared in a
   * tool result the agent or the sentinel read in this conversation (the adapters report the agent's results through
   * `recordResult`). Data tools, which only read, are not refused for their own arguments (their guards judge them),
   * nor are tools whose guard allows every call (`guard think.`), unless the rulebase says so for some parameters
   * (`strict get_reservation_details(reservation_id).`). Also applies to queries, context bindings and confirmations
   * from the model.
   * @default false
   */
  strict?: boolean | StrictOptions;
  /** What to do with a call to a tool that has no guard and is not a data tool. @default 'deny' */
  unguardedTools?: 'allow' | 'deny';
  /** A data tool that takes longer blocks the proof with a timeout. @default 10000 */
  fetchTimeoutMs?: number;
  /** How deep rules may call rules before the search reports a depth limit. @default 64 */
  maxDepth?: number;
  /** Proof steps per call before the search gives up and says so. @default 100000 */
  maxSteps?: number;
  /** Timer used for fetch timeouts; injected by tests. @default systemSleep */
  sleep?: Sleep;
  /** Names of the tools for the model, used in the texts that tell the model what to call. */
  toolNames?: Partial<PolicyToolNames>;
  /**
   * The trust of a tool's results that no `source` declaration of the rulebase names: `untrusted` (only tools
   * declared `trusted` are) or `trusted` (only tools declared `untrusted` are not). User messages and the system
   * prompt are always trusted.
   * @default 'untrusted'
   */
  defaultTrust?: DefaultTrust;
  /** Answers `judged(Name)` conditions; without one they hold as a question for the user. */
  judge?: ConditionJudge;
  /** A judge slower than this answers `unknown`. @default 10000 */
  judgeTimeoutMs?: number;
}

/** Default of `SentinelOptions.fetchTimeoutMs`: a data tool slower than this blocks the proof. */
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
/** Default of `SentinelOptions.maxDepth`: rule nesting beyond this is reported as a limit. */
export const DEFAULT_MAX_DEPTH = 64;
/** Default of `SentinelOptions.maxSteps`: proof steps per call before the search gives up and says so. */
export const DEFAULT_MAX_STEPS = 100_000;
/** Default of `query`'s `maxAnswers`. */
export const DEFAULT_MAX_ANSWERS = 20;

/** The guard evaluator: proves goals and tool calls against a rulebase, a fact store and the data tools. */
export interface Sentinel {
  readonly rulebase: Rulebase;
  readonly facts: FactStore;
  readonly toolNames: PolicyToolNames;
  /**
   * Proves a goal written in the rule language (`refundable(booking_of_interest)`, `booking_status(B, S)`).
   * Fetches what it needs; returns every answer, or the blockers.
   * @throws SentinelInputError when the goal does not parse, names an unknown predicate, or (strict) uses a literal
   * that is not established.
   */
  query(goal: string, options?: { maxAnswers?: number }): Promise<QueryResult>;
  /** Decides whether a tool call may run. Never throws (but after `close()`): a failure inside Panoptes denies the call. */
  check(tool: string, args: Record<string, unknown>): Promise<CheckResult>;
  /** Like `check`, but throws a {@link ToolCallDeniedError} when the call is not allowed. */
  assertAllowed(tool: string, args: Record<string, unknown>): Promise<CheckResult>;
  /** Binds a declared context variable. @throws SentinelInputError for an undeclared name or (strict) an unknown value. */
  bindContext(name: string, value: Value): void;
  /**
   * Records the user's answer to an askable, e.g. `confirm_cancel("ABC123")`: yes asserts it, no retracts it.
   * @throws SentinelInputError when the goal is not a ground askable.
   */
  confirm(goal: string, answer?: boolean): string;
  /** Whether a tool has a guard. */
  isGuarded(tool: string): boolean;
  /**
   * Tells the sentinel what became of a tool call that ran; adapters call it after every guarded call. A successful
   * call consumes the call-bound confirmations of that exact call (a second identical write needs a second yes),
   * invalidates the data its `write` declarations name (the next check reads them again), records a data tool's
   * result as the facts the sentinel would have fetched (same JSON paths and TTLs, so nothing is fetched twice), and
   * remembers the result's values for strict mode. A failed call changes nothing. Adapters call it through
   * `recordToolResult`, which catches and logs a failure of the store, since the call has already run.
   */
  recordResult(tool: string, args: Record<string, unknown>, outcome: ToolOutcome): void;
  /**
   * Records a human approval given through the host (an AI SDK tool approval, a LangGraph interrupt, an MCP
   * elicitation) for the call a check was blocked on: every call-bound confirmation the check asked for is recorded
   * for that exact call, and nothing else. Returns the facts recorded (empty when the check asked for none).
   */
  recordApproval(check: CheckResult): string[];
  /**
   * Waits for the checks and queries in flight, flushes the registered OpenTelemetry providers, then refuses every
   * later call (`check` and `query` reject, the others throw) with a `ClosedError`. Idempotent. The fact store is
   * the caller's and stays as it is.
   */
  close(): Promise<void>;
}

/**
 * Creates a sentinel. Validates the options now, so a missing data tool handler fails at startup, not at the first
 * guarded call.
 * @param options The rulebase, the fact store, the tools, and limits.
 * @throws InvalidOptionError for a missing rulebase or store, a data tool without a handler, or a bad limit.
 * @example
 * const facts = createFactStore({ clock: systemClock, seed: { context: { current_user: 'mia_li_3818' } } });
 * const sentinel = createSentinel({ rulebase, facts, tools: { get_reservation_details: { execute: getReservation } } });
 * const result = await sentinel.check('cancel_reservation', { reservation_id: 'NO6JO3' });
 * if (!result.allowed) return result.text; // tell the model what is missing
 */
export function createSentinel({
  rulebase,
  facts,
  tools = {},
  clock,
  strict = false,
  unguardedTools = 'deny',
  fetchTimeoutMs = DEFAULT_FETCH_TIMEOUT_MS,
  maxDepth = DEFAULT_MAX_DEPTH,
  maxSteps = DEFAULT_MAX_STEPS,
  sleep = systemSleep,
  toolNames,
  defaultTrust = 'untrusted',
  judge,
  judgeTimeoutMs,
  ...telemetryOptions
}: SentinelOptions): Sentinel {
  if (!rulebase || !(rulebase.guards instanceof Map)) throw new InvalidOptionError({ parameter: 'rulebase', value: rulebase, fix: 'Pass the result of parseRulebase() or loadRulebase().' });
  if (!facts || typeof facts.match !== 'function') throw new InvalidOptionError({ parameter: 'facts', value: facts, fix: 'Pass a store from createFactStore().' });
  for (const [name, value] of Object.entries({ fetchTimeoutMs, maxDepth, maxSteps })) {
    if (!Number.isFinite(value) || value <= 0) throw new InvalidOptionError({ parameter: name, value, fix: 'Pass a positive number.' });
  }
  if (defaultTrust !== 'trusted' && defaultTrust !== 'untrusted') throw new InvalidOptionError({ parameter: 'defaultTrust', value: defaultTrust, fix: "Pass 'trusted' or 'untrusted'." });
  if (judge !== undefined && typeof judge !== 'function') throw new InvalidOptionError({ parameter: 'judge', value: judge, fix: "Pass a function ({ name, tool, args, facts }) => 'yes' | 'no' | 'unknown', or a promise of one." });
  const trustOf = trustOfResult(rulebase.sources, defaultTrust);
  if (unguardedTools !== 'allow' && unguardedTools !== 'deny') throw new InvalidOptionError({ parameter: 'unguardedTools', value: unguardedTools, fix: "Pass 'allow' or 'deny'." });
  const handlers = new Map<string, ToolHandler>(Array.isArray(tools) ? (tools as SentinelTool[]).map((tool) => [tool.name, tool]) : Object.entries(tools as Record<string, ToolHandler>));
  for (const tool of rulebase.dataByTool.keys()) {
    if (!executorOf(handlers.get(tool))) {
      throw new InvalidOptionError({ parameter: 'tools', value: [...handlers.keys()], fix: `The rulebase reads data tool '${tool}'; pass a handler for it: tools: { ${tool}: { execute } }, or the tool itself (a LangChain tool, with invoke).` });
    }
  }
  const compiled = compileRulebase(rulebase);
  const telemetry = createTelemetry(telemetryOptionsOf(telemetryOptions));
  const names: PolicyToolNames = { ...DEFAULT_POLICY_TOOL_NAMES, ...toolNames };
  const time = clock ?? facts.clock;
  const strictParameters = strict === false ? undefined : strict === true ? null : (strict.parameters ?? null);
  // Words the policy itself uses (cabin names, statuses) are vocabulary, not claims about the world.
  const vocabulary = new Set(rulebaseConstants(rulebase).map((value) => formatValue(value)));
  const isEstablished = (value: Value) => vocabulary.has(formatValue(value)) || facts.isEstablishedValue(value);
  const readHints = strict === false ? new Map<string, never>() : findReadHints(rulebase);
  // Tools that only read, and tools every call of which is allowed, are not judged on their arguments in strict mode.
  const unchecked = new Set([...rulebase.dataByTool.keys(), ...[...rulebase.guards].flatMap(([tool, guards]) => (guards.some((guard: { params: unknown[]; body: unknown[] }) => guard.params.length === 0 && guard.body.length === 0) ? [tool] : []))]);

  // The calls grounded confirmations were last asked for, by reference: what a reported yes is checked against.
  const askedCalls = new Map<string, Readonly<Record<string, unknown>>>();

  const searchOptions: SearchOptions = { compiled, store: facts, clock: time, tools: handlers, sleep, fetchTimeoutMs, maxDepth, maxSteps, fresh: new KnownCalls(), judge, ...(judgeTimeoutMs !== undefined ? { judgeTimeoutMs } : {}) };
  const searchContext = (): SearchContext => createSearchContext(searchOptions);

  const statusOf = (outcome: SearchOutcome): ProofStatus =>
    outcome.answers.length > 0 ? 'proved' : outcome.blockers.some((blocker) => blocker.kind !== 'condition') ? 'blocked' : 'failed';

  /** In strict mode, the literals of a call that nothing established, each with the read that would establish it. */
  const unestablished = (tool: string, args: Record<string, unknown>): Blocker[] => {
    // `strict tool(param)` in the rulebase opts a tool's parameters in, whatever the tool is and whatever `parameters` says.
    if (strictParameters === undefined) return [];
    const declared = rulebase.strict.get(tool);
    const judged = !unchecked.has(tool);
    if (!judged && declared === undefined) return [];
    const found: Blocker[] = [];
    for (const [parameter, value] of Object.entries(args)) {
      const literal = typeof value === 'string' || typeof value === 'number';
      const checked = declared?.has(parameter) ? literal : judged && (strictParameters === null ? typeof value === 'string' : literal && strictParameters.includes(parameter));
      if (!checked || isEstablished(value as Value)) continue;
      // A parameter the rulebase marks as the user's (`given tool(param)`) may take a value the user said.
      const given = rulebase.given.get(tool)?.has(parameter) === true;
      if (given && facts.isUserWord(value as string | number)) continue;
      const hint = readHints.get(tool)?.get(parameter);
      found.push({ kind: 'unestablished-value', parameter, value: value as Value, ...(hint ? { read: renderReadHint(hint, value as Value, facts) } : {}), ...(given ? { given: true as const } : {}) });
    }
    return found;
  };

  const parseGoal = (goal: string, { checkValues = true }: { checkValues?: boolean } = {}): LiteralNode[] => {
    if (typeof goal !== 'string' || goal.trim() === '') throw new SentinelInputError('The goal is empty.', { modelText: 'Pass a goal in the rule language, e.g. cancellable(booking_of_interest).' });
    const parsed = parseGoalText(goal);
    if (parsed.diagnostics.length > 0) {
      const first = parsed.diagnostics[0]!;
      throw new SentinelInputError(`Cannot parse goal ${JSON.stringify(goal)}: ${first.message} at column ${first.column}`, {
        diagnostics: parsed.diagnostics,
        modelText: `Cannot parse the goal at column ${first.column}: ${first.message}. Write e.g. cancellable(booking_of_interest); variables start with a capital letter, quote ids like "ABC123".`,
      });
    }
    const literals = resolveGoalContexts(parsed.literals, rulebase);
    checkGoalPredicates(literals, rulebase);
    if (strictParameters !== undefined && checkValues) {
      for (const value of goalLiterals(literals)) {
        if (!isEstablished(value)) {
          throw new SentinelInputError(`Strict mode: ${formatValue(value)} in the goal is not an established fact`, {
            modelText: `${formatValue(value)} is not a known fact. Use context names (${[...rulebase.contexts.keys()].join(', ') || 'none declared'}) or values from the facts you were given.`,
          });
        }
      }
    }
    return literals;
  };

  /** Decides whether a tool call may run (`check` without its span). */
  async function checkCall(tool: string, rawArgs: Record<string, unknown>): Promise<CheckResult> {
  const args: Record<string, unknown> = typeof rawArgs === 'object' && rawArgs !== null && !Array.isArray(rawArgs) ? rawArgs : {};
    const call = `${tool}(${Object.entries(args).map(([name, value]) => `${name}: ${safeJson(value)}`).join(', ')})`;
    const denied = (status: ProofStatus, blockers: Blocker[]): CheckResult => ({
      allowed: false,
      status,
      tool,
      args,
      blockers,
      text:
        status === 'blocked'
          ? blockerText(`${tool} is not allowed yet.`, blockers, names)
          : blockerText(`${tool} is not allowed by the policy.`, blockers, names, 'Do not retry it with these arguments unless the facts change; tell the user why.'),
      message: blockerMessage(`Tool call ${call} denied by ${rulebase.source}:`, blockers, rulebase.source),
    });
    try {
      const refused = unestablished(tool, args);
      if (refused.length > 0) return denied('blocked', refused);
      const guards = compiled.guards.get(tool);
      if (!guards) {
        if (rulebase.dataByTool.has(tool) || unguardedTools === 'allow') {
          return { allowed: true, status: 'proved', tool, args, blockers: [], text: `${tool} is allowed.`, message: `Tool call ${call} allowed: no guard declared.` };
        }
        return denied('failed', [{ kind: 'no-guard', tool }]);
      }
      // The quiet pass proves allowed calls without rendering the branches that failed; only a refusal, which has
      // to explain itself, pays for a second pass (everything it needs is in the store or this call's fetches by then).
      const context = searchContext();
      let outcome = await new Search(context, false).proveGuard(tool, guards, args);
      if (outcome.answers.length === 0) outcome = await new Search(context, true).proveGuard(tool, guards, args);
      let status = statusOf(outcome);
      if (status === 'blocked') {
        // A grounded confirmation: the user's last yes counts when the message it answered stated the call.
        const grounding = groundFromExchange(rulebase, facts, args, outcome.blockers);
        if (grounding.recorded) {
          outcome = await new Search(searchContext(), true).proveGuard(tool, guards, args);
          status = statusOf(outcome);
        } else {
          rememberAskedCalls(askedCalls, grounding.blockers, args);
          outcome = { ...outcome, blockers: grounding.blockers };
        }
      }
      if (status !== 'proved') return denied(status, outcome.blockers);
      const derivation = outcome.answers[0]!.derivation;
      // The derivation is in the result as data; rendering it here would cost more than the proof itself.
      return { allowed: true, status, tool, args, derivation, blockers: [], text: `${tool} is allowed.`, message: `Tool call ${call} allowed by ${derivation.source ?? rulebase.source}.` };
    } catch (error) {
      if (isHostControlFlow(error)) throw error; // a data tool paused the run (an interrupt): the check resumes with it
      // Fail closed: a guard that cannot be evaluated must not let a write through.
      return denied('blocked', [{ kind: 'internal-error', reason: error instanceof Error ? error.message : String(error) }]);
    }
  }

  const sentinel: Sentinel = {
    rulebase,
    facts,
    toolNames: names,

    async query(goal, { maxAnswers = DEFAULT_MAX_ANSWERS } = {}) {
      const literals = parseGoal(goal);
      const clause = compileGoal(literals, rulebase);
      const context = searchContext();
      let outcome = await new Search(context, false).proveGoal(clause, goal, maxAnswers);
      if (outcome.answers.length === 0) outcome = await new Search(context, true).proveGoal(clause, goal, maxAnswers);
      const status = statusOf(outcome);
      if (status === 'proved' && !outcome.readClock) {
        for (const answer of outcome.answers) {
          literals.forEach((literal, index) => {
            const args = answer.literalArgs[index];
            if (literal.kind !== 'call' || !rulebase.rules.has(literal.predicate) || args === undefined) return;
            facts.recordDerived({
              predicate: literal.predicate,
              args,
              dependsOn: { factIds: answer.factIds, contexts: outcome.contextsRead, negated: outcome.negatedPredicates },
              derivation: answer.derivation,
            });
          });
        }
      }
      const answers = outcome.answers.map((answer) => ({ bindings: answer.bindings, derivation: answer.derivation }));
      const text = status === 'proved' ? answersText(goal, answers) : blockerText(status === 'blocked' ? `Not yet known whether ${goal} holds.` : `No: ${goal} does not hold.`, outcome.blockers, names);
      const message =
        status === 'proved'
          ? `${goal} proved:\n${answers.map((answer) => formatDerivation(answer.derivation, '  ')).join('\n')}`
          : blockerMessage(`${goal} ${status}:`, outcome.blockers, rulebase.source);
      return { status, goal, answers, blockers: status === 'proved' ? [] : outcome.blockers, text, message };
    },

    async check(tool, rawArgs) {
      // A `panoptes.guard {tool}` span (data tools fetched for the proof nest under it), the decision as attributes.
      const start = telemetry.now();
      const span = telemetry.startSpan(`${SPAN.guard} ${String(tool)}`, {
        [ATTR.operationName]: OPERATION.guard,
        [ATTR.toolName]: String(tool),
        [ATTR.guardBy]: 'sentinel',
        ...guardrailMarkers(false),
        ...(telemetry.captureContent ? { [ATTR.toolCallArguments]: telemetry.content(rawArgs) ?? '' } : {}),
      });
      try {
        const result = await telemetry.withSpan(span, () => checkCall(tool, rawArgs));
        recordCheck(telemetry, span, start, result);
        return result;
      } catch (error) {
        telemetry.end(span, error);
        throw error;
      }
    },

    async assertAllowed(tool, args) {
      const result = await sentinel.check(tool, args);
      if (!result.allowed) throw new ToolCallDeniedError(result);
      return result;
    },

    bindContext(name, value) {
      if (!rulebase.contexts.has(name)) {
        const known = [...rulebase.contexts.keys()];
        throw new SentinelInputError(`'${name}' is not a context variable of ${rulebase.source}`, {
          modelText: `There is no context "${name}". ${didYouMean(name, known) || `Context names: ${known.join(', ') || 'none'}.`}`,
        });
      }
      if (value === undefined || (typeof value === 'object' && value !== null)) {
        throw new SentinelInputError(`A context value must be a string, number, boolean or null; received ${safeJson(value)}`, { modelText: 'Pass the value as a string, e.g. "ABC123".' });
      }
      if (strictParameters !== undefined && !isEstablished(value)) {
        throw new SentinelInputError(`Strict mode: ${formatValue(value)} is not an established fact`, {
          modelText: `${formatValue(value)} is not a known fact. Look it up with a data tool first, then set ${name}.`,
        });
      }
      facts.bind(name, value, { source: 'model' });
    },

    confirm(goal, answer = true) {
      // The values are checked below, without the call reference a call-bound confirmation ends with.
      const literals = parseGoal(goal, { checkValues: false });
      const literal = literals[0];
      if (literals.length !== 1 || literal?.kind !== 'call' || !rulebase.askables.has(literal.predicate)) {
        const askables = [...rulebase.askables.keys()];
        throw new SentinelInputError(`${goal} is not an askable goal`, { modelText: `Only these can be confirmed: ${askables.join(', ') || 'none'}. Pass the goal exactly as the blocker gave it.` });
      }
      const values = literal.args.map((arg) => groundValue(arg, facts));
      if (values.some((value) => value === undefined)) {
        throw new SentinelInputError(`${goal} is not ground`, { modelText: `Fill in every argument of ${formatLiteralNode(literal)} (no variables; bind context variables first).` });
      }
      const ground = values as Value[];
      const declaration = rulebase.askables.get(literal.predicate)!;
      const confirms = declaration.confirms;
      if (confirms && !isConfirmationRef(ground.at(-1), confirms.tool)) {
        throw new SentinelInputError(`${goal} does not end with a call reference of ${confirms.tool}`, {
          modelText: `${literal.predicate} confirms one call of ${confirms.tool}: call ${confirms.tool} first, then pass the goal exactly as its refusal gave it (it ends with the call's reference, "${confirms.tool}#...").`,
        });
      }
      if (strictParameters !== undefined) {
        // The user's answer is theirs to give (a reason, a yes); the ids it is about must be known ones.
        for (const value of confirms ? ground.slice(0, -1) : ground) {
          if (typeof value === 'string' && /["\d]/.test(JSON.stringify(value).slice(1, -1)) && !isEstablished(value)) {
            throw new SentinelInputError(`Strict mode: ${formatValue(value)} in the goal is not an established fact`, {
              modelText: `${formatValue(value)} is not a known fact. Pass the goal exactly as the refusal gave it, with context names where it used them.`,
            });
          }
        }
      }
      if (answer && isGrounded(declaration)) {
        // The model's word is not the user's: a grounded confirmation counts only for a yes the conversation shows.
        const ref = ground.at(-1) as string;
        const why = ungroundedReason(declaration, facts, askedCalls.get(ref));
        if (why !== undefined) throw new SentinelInputError(`${goal} is not confirmed: ${why}`, { modelText: `Not recorded: ${why}.` });
        facts.useExchange(facts.exchange()!.id, ref);
      }
      if (answer) facts.assert(literal.predicate, ground, { source: 'user' });
      else facts.retract(literal.predicate, ground);
      return formatFact(literal.predicate, ground);
    },

    isGuarded(tool) {
      return compiled.guards.has(tool);
    },

    recordResult(tool, rawArgs, outcome) {
      if (!outcome?.ok) return; // a failed call changed nothing: its confirmation stands, its data are still true
      // Every result the agent read is a source: what it says may be what the next call is asked to do. First, and
      // never throwing, so nothing below can keep an injected value from being recorded.
      facts.provenance.recordToolResult(tool, outcome.result, trustOf, rawArgs);
      const args: Record<string, unknown> = typeof rawArgs === 'object' && rawArgs !== null && !Array.isArray(rawArgs) ? rawArgs : {};
      consumeConfirmations(rulebase, facts, tool, args);
      invalidateWrites(rulebase, facts, tool, args);
      if (rulebase.dataByTool.has(tool)) recordDataResult(rulebase, facts, tool, args as Record<string, Value>, outcome.result);
      facts.noteReadValues(readValuesOf(outcome.result));
    },

    recordApproval(check) {
      const recorded: string[] = [];
      for (const blocker of check?.blockers ?? []) {
        if (blocker.kind !== 'ask' || blocker.call === undefined) continue;
        const args = blocker.args as Value[];
        facts.assert(blocker.predicate, args, { source: 'user' });
        recorded.push(formatFact(blocker.predicate, args));
      }
      return recorded;
    },

    close: () => lifecycle.close(() => flushTelemetry(systemTimers)),
  };
  const lifecycle = createLifecycle('sentinel');
  lifecycle.guard(sentinel, SENTINEL_ASYNC_CALLS, SENTINEL_SYNC_CALLS);
  return sentinel;
}

/** The sentinel's calls refused after `close()`: these reject, the synchronous ones below throw. */
export const SENTINEL_ASYNC_CALLS = ['query', 'check', 'assertAllowed'] as const;
export const SENTINEL_SYNC_CALLS = ['bindContext', 'confirm', 'recordResult', 'recordApproval'] as const;

/** Unknown predicates and wrong arities in a query are input errors, reported with a suggestion. */
function checkGoalPredicates(literals: readonly LiteralNode[], rulebase: Rulebase): void {
  const arities = new Map<string, number>();
  for (const [name, clauses] of rulebase.rules) arities.set(name, clauses[0]!.args.length);
  for (const [name, declaration] of rulebase.data) arities.set(name, declaration.params.length);
  // A call-bound confirmation's facts end with the call's reference.
  for (const [name, declaration] of rulebase.askables) arities.set(name, declaration.params.length + (declaration.confirms ? 1 : 0));
  for (const [name, builtin] of Object.entries(BUILTIN_PREDICATES)) arities.set(name, builtin.arity);
  const visit = (literal: LiteralNode) => {
    if (literal.kind === 'not') return visit(literal.goal);
    if (literal.kind !== 'call') return;
    const arity = arities.get(literal.predicate);
    if (arity === undefined) {
      const hint = didYouMean(literal.predicate, arities.keys());
      throw new SentinelInputError(`Unknown predicate '${literal.predicate}'`, {
        modelText: `Unknown predicate ${literal.predicate}. ${hint || `Known: ${[...rulebase.rules.keys()].join(', ')}.`}`,
      });
    }
    const confirms = rulebase.askables.get(literal.predicate)?.confirms;
    if (confirms && literal.args.length === arity - 1) {
      throw new SentinelInputError(`${literal.predicate} needs the reference of the ${confirms.tool} call it confirms`, {
        modelText: `${literal.predicate} confirms one call of ${confirms.tool}: call ${confirms.tool} first, then pass the goal exactly as its refusal gave it (it ends with the call's reference, "${confirms.tool}#...").`,
      });
    }
    if (arity !== literal.args.length) {
      throw new SentinelInputError(`'${literal.predicate}' takes ${arity} arguments, got ${literal.args.length}`, { modelText: `${literal.predicate} takes ${arity} argument(s).` });
    }
  };
  literals.forEach(visit);
}

/** Constant values written in a goal (not context names, not variables): what strict mode checks in queries. */
function goalLiterals(literals: readonly LiteralNode[]): Value[] {
  const values: Value[] = [];
  const walk = termWalker((node) => {
    if (node.kind === 'constant' && ((node.quoted && typeof node.value === 'string') || typeof node.value === 'number')) values.push(node.value);
  });
  literals.forEach(walk.literal);
  return values;
}

function rulebaseConstants(rulebase: Rulebase): Value[] {
  const values: Value[] = [];
  const walk = termWalker((node) => {
    if (node.kind === 'constant' && node.value !== null) values.push(node.value);
  });
  for (const declaration of rulebase.declarations) {
    if (declaration.kind === 'rule') {
      declaration.args.forEach(walk.term);
      declaration.body.forEach(walk.literal);
    } else if (declaration.kind === 'guard') {
      declaration.params.forEach((param) => walk.term(param.value));
      declaration.body.forEach(walk.literal);
    }
  }
  return values;
}

/** Visits every term under a term or a literal: into lists, object values, both sides of arithmetic, negations. */
function termWalker(visit: (node: TermNode) => void) {
  const term = (node: TermNode): void => {
    visit(node);
    if (node.kind === 'list') node.items.forEach(term);
    else if (node.kind === 'object') node.entries.forEach((entry) => term(entry.value));
    else if (node.kind === 'arithmetic') {
      term(node.left);
      term(node.right);
    }
  };
  const literal = (node: LiteralNode): void => {
    if (node.kind === 'call') node.args.forEach(term);
    else if (node.kind === 'compare') [node.left, node.right].forEach(term);
    else if (node.kind === 'member') [node.element, node.list].forEach(term);
    else literal(node.goal);
  };
  return { term, literal };
}

function groundValue(node: TermNode, facts: FactStore): Value | undefined {
  switch (node.kind) {
    case 'constant':
      return node.value;
    case 'context':
      return facts.context(node.name)?.value;
    case 'list': {
      const items = node.items.map((item) => groundValue(item, facts));
      return items.every((item) => item !== undefined) ? (items as Value[]) : undefined;
    }
    default:
      return undefined;
  }
}

// Enough for the calls a conversation has open at once; the oldest goes first.
const MAX_ASKED_CALLS = 64;

/** Remembers the arguments of each call a grounded confirmation was asked for, by its reference. */
function rememberAskedCalls(asked: Map<string, Readonly<Record<string, unknown>>>, blockers: readonly Blocker[], args: Readonly<Record<string, unknown>>): void {
  for (const blocker of blockers) {
    if (blocker.kind !== 'ask' || blocker.call === undefined) continue;
    const ref = blocker.args.at(-1);
    if (typeof ref !== 'string') continue;
    asked.delete(ref);
    asked.set(ref, args);
    if (asked.size > MAX_ASKED_CALLS) asked.delete(asked.keys().next().value!);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A sentinel decision on its span: the result, and for a refusal the status and blockers; counted and timed. */
function recordCheck(telemetry: Telemetry, span: ReturnType<Telemetry['startSpan']>, start: number, result: CheckResult): void {
  telemetry.duration('guardDuration', start, { [ATTR.toolName]: result.tool });
  if (!result.allowed) telemetry.count('refusals', { [ATTR.toolName]: result.tool, [ATTR.refusedBy]: 'sentinel' });
  if (span) {
    telemetry.setAttributes(span, {
      [ATTR.guardResult]: result.allowed ? 'allow' : 'deny',
      [ATTR.guardStatus]: result.status,
      ...(result.allowed ? {} : { [ATTR.guardReason]: result.text, [ATTR.guardBlockers]: result.blockers.map(blockerLabel), ...guardrailMarkers(true) }),
    });
  }
  telemetry.end(span);
}

/** A blocker in a few words: its kind and what it names (a goal, a context variable, a tool), never a value. */
function blockerLabel(blocker: Blocker): string {
  const named = blocker as { goal?: unknown; name?: unknown; tool?: unknown; parameter?: unknown; predicate?: unknown };
  const what = named.goal ?? named.name ?? named.tool ?? named.parameter ?? named.predicate;
  return typeof what === 'string' ? `${blocker.kind}: ${what}` : blocker.kind;
}
