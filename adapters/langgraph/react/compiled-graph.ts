import { CompiledStateGraph, StateGraph } from '@langchain/langgraph';
import { InvalidOptionError } from '../../../src/index.js';
import { tracedRun, type RunTraceSettings } from './run-trace.js';

/** LangGraph's recursion limit when a run names none. */
const LANGGRAPH_DEFAULT_RECURSION_LIMIT = 25;

/** What a compiled ReAct graph adds to each invocation: the recursion limit its budgets need, its name, its trace. */
export interface ReactRuntime extends RunTraceSettings {
  /** The least recursion limit a run gets: enough for its whole budget, so a budget ends it, not LangGraph. */
  recursionLimit: number;
  /** The graph's name, unless `compile` names another (LangGraph Studio and traces show it). */
  name: string;
  /** A verification graph's result from a state (a paused run's, read from its checkpoint). */
  resultOf?: (state: any, threadId: string | undefined) => unknown;
}

/** The runtime of a compiled ReAct graph (or of what delegates to one, as a shadow verifier does); undefined for anything else. */
export function reactRuntimeOf(graph: unknown): ReactRuntime | undefined {
  return ((graph as { builder?: unknown } | undefined)?.builder as ReactStateGraph | undefined)?.reactRuntime;
}

/**
 * The `StateGraph` a ReAct graph is built as: LangGraph's own, whose `compile` gives a graph that keeps the
 * controller's promises on every invocation (`invoke`, `stream` in any mode, `streamEvents`, as a subgraph).
 */
export class ReactStateGraph extends StateGraph<any, any, any, any, any, any, any> {
  /** Set once the graph is built; read by every invocation of its compiled graphs. */
  reactRuntime!: ReactRuntime;

  override compile(options: Parameters<StateGraph<any>['compile']>[0] = {}): any {
    const compiled = super.compile({ name: this.reactRuntime.name, ...options });
    // LangGraph's compile makes a CompiledStateGraph itself; its prototype is swapped for the subclass below, whose
    // `withConfig` copies keep it (they are made with `new this.constructor`).
    return Object.setPrototypeOf(compiled, ReactCompiledStateGraph.prototype);
  }
}

/**
 * A compiled ReAct graph. Every invocation passes through `_streamIterator` (`invoke` and `streamEvents` stream, a
 * parent graph invokes its subgraphs), so that is where the controller's promises are kept:
 * - the recursion limit is raised to what the budgets need, whatever lower limit the caller or a parent graph passed,
 *   so a budget ends the run with a status, never `GraphRecursionError`;
 * - a graph that keeps checkpoints refuses a run that names no thread, before any node runs;
 * - with an OpenTelemetry SDK (or a meter), the invocation is a span, and ends in the runs counter.
 */
class ReactCompiledStateGraph extends CompiledStateGraph<any, any, any, any, any, any> {
  override async *_streamIterator(input: any, options?: any): AsyncGenerator<any> {
    const runtime = (this.builder as unknown as ReactStateGraph).reactRuntime;
    const given = options?.recursionLimit ?? this.config?.recursionLimit ?? LANGGRAPH_DEFAULT_RECURSION_LIMIT;
    const config = { ...options, recursionLimit: Math.max(given, runtime.recursionLimit) };
    assertThreadNamed(this.checkpointer, config);
    const inner = super._streamIterator(input, config);
    if (!runtime.telemetry.active()) return yield* inner;
    return yield* tracedRun(runtime, input, config, inner);
  }
}

/**
 * A graph that keeps checkpoints needs a thread for each run; LangGraph would say so only when it writes the first
 * checkpoint, after the first node ran. A subgraph's run (it carries its parent's task) is its parent's business.
 */
function assertThreadNamed(checkpointer: unknown, config: { configurable?: Record<string, unknown> }): void {
  if (!checkpointer || typeof checkpointer === 'boolean') return;
  const configurable = config.configurable ?? {};
  if (configurable.thread_id !== undefined || configurable.__pregel_read !== undefined) return;
  throw new InvalidOptionError({
    parameter: 'configurable.thread_id',
    value: undefined,
    fix: 'This graph keeps checkpoints: pass { configurable: { thread_id } } to name the thread the run is kept in (verifyCase names one per criterion).',
  });
}
