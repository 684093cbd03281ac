import type { Clock } from '../clock/index.js';
import type { FactStore } from '../facts/index.js';
import type { CompiledDataDeclaration, Value } from '../rules/index.js';
import type { CClause, CompiledRulebase } from './compile.js';
import { callTool } from './fetch.js';
import { fetchKey } from './fetch-key.js';
import { readValuesOf, recordDataResult } from './tool-results.js';
import { isFresh, KnownCalls } from './known-calls.js';
import type { Blocker } from './result.js';
import type { Sleep } from './sleep.js';

/** A tool as the solver needs it: data tools must be executable; action tools are only checked. */
export interface ToolHandler {
  /**
   * Fetches a data tool's result. Called with the arguments the rulebase's `data` declaration gives the tool (JSON
   * values by parameter name), and a signal that aborts when the call times out.
   *
   * The arguments are typed `any` so a handler may declare its own, as a tool function does:
   * `async ({ booking_id }: { booking_id: string }) => …`, an interface, or a zod-inferred type. Any narrower type
   * (`Record<string, unknown>`) refuses those handlers, since function parameters are checked contravariantly. What
   * the arguments hold is decided by the rulebase, which `panoptes rules check --tools` checks against the tools'
   * parameters; TypeScript cannot see it.
   */
  execute?: (args: any, options: { signal: AbortSignal }) => unknown;
  /**
   * Used when there is no `execute`: a LangChain tool (or any runnable) is called as `invoke(args, { signal })`, so the
   * agent's own tools can be passed as they are. Its text result is read as JSON when it is JSON.
   */
  invoke?: (args: any, options: { signal: AbortSignal }) => unknown;
}

/** The function that fetches a data tool's result: its `execute`, else its `invoke` (a LangChain tool); or none. */
export function executorOf(handler: ToolHandler | undefined): ToolHandler['execute'] | undefined {
  if (typeof handler?.execute === 'function') return handler.execute.bind(handler);
  if (typeof handler?.invoke === 'function') return handler.invoke.bind(handler);
  return undefined;
}

/** What became of a data tool call. */
export type FetchOutcome = { ok: true; errors?: Readonly<Record<string, string>> } | { ok: false; reason: string; blockers?: Blocker[] };

/**
 * Proves the guard of a data tool before it is called (data tools can be guarded too). The solver supplies it as a
 * nested search; `guardStack` holds the calls whose guards are being proved, so a guard that needs its own tool's
 * result is reported instead of recursing.
 */
export type DataGuardProver = (
  tool: string,
  guards: readonly CClause[],
  args: Record<string, Value>,
  guardStack: ReadonlySet<string>,
) => Promise<{ allowed: boolean; blockers: readonly Blocker[] }>;

/** What a {@link DataFetcher} reads and calls. */
export interface DataFetcherOptions {
  compiled: CompiledRulebase;
  store: FactStore;
  clock: Clock;
  tools: ReadonlyMap<string, ToolHandler>;
  sleep: Sleep;
  fetchTimeoutMs: number;
  /** Calls found fresh in the store, kept from check to check while the store does not change. */
  fresh: KnownCalls;
}

const OK: FetchOutcome = { ok: true };

/**
 * The data tool calls of one top-level check or query. A call whose facts are in the store and fresh is not made
 * again, and a call this check makes is made once however many conditions need it. Calls run concurrently: the
 * solver starts every call it can name before it waits for one.
 */
export class DataFetcher {
  /** Calls made by this check, by key: settled outcomes, or the promise while they run. */
  private readonly made = new Map<string, FetchOutcome | Promise<FetchOutcome>>();
  /** Calls this check made, once settled. Failures are not in the store: this is what keeps them from being retried within the check. */
  private readonly settled = new KnownCalls();

  constructor(
    private readonly options: DataFetcherOptions,
    private readonly proveGuard: DataGuardProver,
  ) {}

  /**
   * Makes sure the facts of `declaration` for these tool arguments are in the store: at once when they are there and
   * fresh, otherwise by calling the tool (its guard first).
   */
  ensure(declaration: CompiledDataDeclaration, args: Record<string, Value>, guardStack: ReadonlySet<string>): FetchOutcome | Promise<FetchOutcome> {
    const { store, fresh } = this.options;
    const now = this.options.clock.now();
    fresh.validate(store.version);
    const known = fresh.find(declaration, args, now) ?? this.settled.find(declaration, args, now);
    if (known) return known;
    const key = fetchKey(declaration.tool, args);
    const record = store.fetchRecord(key);
    if (record && isFresh(record.fetchedAt, declaration, now)) {
      const outcome: FetchOutcome = record.errors ? { ok: true, errors: record.errors } : OK;
      fresh.add(declaration.tool, { args, outcome, fetchedAt: record.fetchedAt });
      return outcome;
    }
    const made = this.made.get(key);
    if (made) return made;
    const pending: Promise<FetchOutcome> = this.call(declaration.tool, args, key, guardStack).then((outcome) => {
      // A data tool's guard that needs the tool's own result makes the same call from inside it; the outer one counts.
      if (this.made.get(key) === pending) {
        this.made.set(key, outcome);
        this.settled.add(declaration.tool, { args, outcome });
      }
      return outcome;
    });
    this.made.set(key, pending);
    return pending;
  }

  private async call(tool: string, args: Record<string, Value>, key: string, guardStack: ReadonlySet<string>): Promise<FetchOutcome> {
    const { compiled, store, tools, fetchTimeoutMs, sleep } = this.options;
    const guards = compiled.guards.get(tool);
    if (guards) {
      if (guardStack.has(key)) return { ok: false, reason: `the guard of ${tool} needs ${tool}'s own result` };
      const verdict = await this.proveGuard(tool, guards, args, new Set([...guardStack, key]));
      if (!verdict.allowed) {
        const actionable = verdict.blockers.filter((blocker) => blocker.kind !== 'condition');
        return { ok: false, reason: `the guard of ${tool} does not allow this call`, blockers: actionable };
      }
    }
    const execute = executorOf(tools.get(tool));
    if (!execute) return { ok: false, reason: `no handler for data tool ${tool}` };
    const called = await callTool(tool, execute, args, fetchTimeoutMs, sleep);
    if (!called.ok) return called;
    recordDataResult(compiled.rulebase, store, tool, args, called.result);
    // Values the sentinel read count for strict mode as the agent's own reads do.
    store.noteReadValues(readValuesOf(called.result));
    const errors = store.fetchRecord(key)?.errors;
    return errors ? { ok: true, errors } : OK;
  }
}


export { fetchKey } from './fetch-key.js';
