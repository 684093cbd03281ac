import { andThen, attempt, createMemorySessionStore, createMonitor, type MaybePromise, type MemorySessionStore, type Monitor, type MonitorOptions, type MonitorSession, type SessionStore } from '../../src/index.js';
import { isTextOf, parseSessionText, sessionText } from './session-text.js';

/** A monitor whose sessions live in graph state: nodes load the thread's session before using it. */
export interface GraphMonitor extends Monitor {
  /**
   * Makes the session graph state holds (parsed from the channel's text) the one the monitor continues; none (`null`
   * on a new thread, or `undefined` in a graph without the channel) starts the session afresh. The nodes of
   * `panoptes/langgraph` call it for you.
   */
  load(sessionId: string, session: MonitorSession | null | undefined): Promise<void>;
}

/** Options of {@link createGraphMonitor}: those of `createMonitor`, without a store (graph state is the store). */
export interface GraphMonitorOptions extends Omit<MonitorOptions, 'store' | 'historyLimit'> {
  /**
   * Trace states, steps, deviations and refusals kept per session. Fewer than a plain monitor keeps (100): every
   * checkpoint of a thread holds the session again, and LangGraph's cost per step grows with its size (about 17 us
   * per KB of session per model call, measured). The verdicts do not depend on it; the report lists only what was
   * kept. @default 20
   */
  historyLimit?: number;
}

/** The history a graph monitor keeps unless told otherwise: see {@link GraphMonitorOptions.historyLimit}. */
export const GRAPH_HISTORY_LIMIT = 20;

/** The in-memory store of each monitor `createGraphMonitor` made, which the nodes read and write without a promise. */
const graphStores = new WeakMap<Monitor, MemorySessionStore<MonitorSession>>();

/**
 * Creates a monitor for LangGraph graphs, hand-built or `createAgent`'s. Graph state, not the monitor, is where a
 * session lives: each node of `panoptes/langgraph` (and the `panoptes/langchain` middleware) loads the session from
 * state (`PanoptesAnnotation`, or the middleware's own field) before a check and writes it back after, so a
 * checkpointer persists it and a thread resumed elsewhere continues with the same verdicts. The monitor only keeps a
 * bounded cache between the two.
 * @throws {InvalidOptionError} for the options `createMonitor` rejects.
 * @example
 * const monitor = createGraphMonitor({ workflow: await loadWorkflow('examples/workflows/customer-support.yaml') });
 * const graph = new StateGraph(State).addNode('agent', wrapModelNode(callModel, { monitor })).addNode('tools', new GuardedToolNode(tools, { monitor }));
 */
export function createGraphMonitor({ historyLimit = GRAPH_HISTORY_LIMIT, ...options }: GraphMonitorOptions): GraphMonitor {
  const store = createMemorySessionStore<MonitorSession>(options.clock ? { clock: options.clock } : {});
  // The monitor itself, extended (not a copy): `syncFirst` finds its synchronous calls by identity.
  const monitor = Object.assign(createMonitor({ ...options, historyLimit, store }), {
    async load(sessionId: string, session: MonitorSession | null | undefined) {
      if (session) store.set(sessionId, session);
      else store.delete(sessionId);
    },
  });
  graphStores.set(monitor, store);
  return monitor;
}

/**
 * Whether a monitor keeps its sessions in graph state.
 * @example
 * isGraphMonitor(createGraphMonitor({ workflow })) // true
 * isGraphMonitor(createMonitor({ workflow })) // false: its sessions stay in its own store
 */
export function isGraphMonitor(monitor: Monitor): monitor is GraphMonitor {
  return typeof (monitor as Partial<GraphMonitor>).load === 'function';
}

/** How a node reaches the session a graph monitor keeps for graph state. */
export interface GraphSessionAccess {
  /**
   * Makes the session graph state holds (its JSON text) the one the monitor continues (none: start afresh).
   * `fanOut`: the node is one of several tasks of one step that all read this text (a `Send` per tool call).
   */
  adopt(sessionId: string, text: string | null | undefined, step?: { fanOut: boolean }): MaybePromise<void>;
  /** The session as it stands now, as JSON text for the node's state update. */
  current(sessionId: string): MaybePromise<string | undefined>;
}

/**
 * The session access of a graph monitor, or undefined for a monitor that keeps its sessions itself. For one
 * `createGraphMonitor` made, straight to its in-memory store: a step pays no promise for it. The nodes call this
 * only once their own monitor calls have settled, so nothing for the session is in flight when they read it.
 */
export function graphSessionAccess(monitor: Monitor): GraphSessionAccess | undefined {
  let access = accesses.get(monitor);
  if (access) return access;
  const store = graphStores.get(monitor);
  if (store) access = sessionAccess(store);
  else if (isGraphMonitor(monitor)) access = sessionAccess({ get: (sessionId) => monitor.session(sessionId), set: (sessionId, session) => monitor.load(sessionId, session), delete: (sessionId) => monitor.load(sessionId, null) });
  else return undefined;
  accesses.set(monitor, access);
  return access;
}

/** Where a step reports Panoptes' own failures with the session, as `createFailureLog` makes it. */
export type SessionFailureLog = (where: string, error: unknown) => void;

/**
 * Runs one step of a node (a model call, a tool call) on the thread's session in graph state: makes the session
 * the text `stored` holds the one the monitor continues, runs the step, then hands `write` the session's new text
 * when the step changed it, for the step's state update. Panoptes' own failures (a text that does not parse, a store
 * that fails) go to `failed`, naming `where` the session lives, and the step goes on.
 * @example
 * return onGraphSession(access, { sessionId, stored: state.panoptes, where: 'graph state' }, check, (update, panoptes) => ({ ...update, panoptes }), failed);
 */
export function onGraphSession<Result, Written>(
  access: GraphSessionAccess,
  { sessionId, stored, fanOut = false, where }: { sessionId: string; stored: string | null | undefined; fanOut?: boolean; where: string },
  step: () => MaybePromise<Result>,
  write: (result: Result, text: string) => Written,
  failed: SessionFailureLog,
): MaybePromise<Result | Written> {
  return andThen(
    attempt(() => access.adopt(sessionId, stored, fanOut ? FAN_OUT : NOT_FAN_OUT), noop, (error) => failed(`loading the session from ${where}`, error)),
    () =>
      andThen(step(), (result) =>
        attempt(
          () => access.current(sessionId),
          (current) => (current && current !== stored ? write(result, current) : result),
          (error) => (failed(`reading the session for ${where}`, error), result),
        ),
      ),
  );
}

function noop(): void {}

/** One session access per monitor, shared by all its nodes: each step's adopt ends the fan-out before it. */
const accesses = new WeakMap<Monitor, GraphSessionAccess>();

const NOT_FAN_OUT = { fanOut: false } as const;
const FAN_OUT = { fanOut: true } as const;

/** Threads whose last step was a fan-out; an entry lives until the thread's next step, so the bound is a backstop. */
const MAX_FAN_OUTS = 10_000;

function sessionAccess(sessions: SessionStore<MonitorSession>): GraphSessionAccess {
  // The tasks of a fan-out all read the same text from state, while each changes the session held here (the monitor
  // takes their checks in turn): a task that went back to the text would undo its siblings' records. So, by thread,
  // the text the current fan-out's tasks read: the session held here descends from it.
  const fanOutTexts = new Map<string, string>();
  return {
    adopt(sessionId, text, { fanOut } = NOT_FAN_OUT) {
      const siblingsRead = fanOutTexts.get(sessionId);
      if (!fanOut || !text) fanOutTexts.delete(sessionId);
      else if (siblingsRead !== text) {
        if (fanOutTexts.size >= MAX_FAN_OUTS) fanOutTexts.delete(fanOutTexts.keys().next().value!);
        fanOutTexts.set(sessionId, text);
      }
      if (!text) return sessions.delete(sessionId);
      return andThen(sessions.get(sessionId), (held) => {
        // The thread's own last write, still in memory (or read back from a checkpoint), or what a sibling made of
        // it: nothing to parse.
        if (held !== undefined && (isTextOf(held, text) || (fanOut && siblingsRead === text))) return;
        return andThen(sessions.delete(sessionId), () => sessions.set(sessionId, parseSessionText(text))); // a text that does not parse leaves no stale session
      });
    },
    current: (sessionId) => andThen(sessions.get(sessionId), (session) => session && sessionText(session)),
  };
}
