import type { SelectWorkflow } from '../workflow-choice/index.js';
import type { SessionStore } from '../store/index.js';
import type { Workflow } from '../workflow/index.js';
import type { Monitor, MonitorOptions } from './types.js';

/**
 * The options of a monitor of several workflows: each session runs under one of `workflows`, chosen by `select` the
 * first time one of its calls needs a workflow and kept with the session from then on. Every other option is a
 * monitor's (`MonitorOptions`), shared by the workflows.
 */
export interface WorkflowsMonitorOptions extends Omit<MonitorOptions, 'workflow' | 'store'> {
  /** The workflows by id (letters, digits, `_` and `-`): the id is what `select` returns, reports carry and the store keys by. */
  workflows: Readonly<Record<string, Workflow>>;
  /** The id of the workflow a session runs under when `select` chooses none, or fails. */
  default: string;
  /**
   * How a session's workflow is chosen: a function, a session attribute (`{ attribute }`), or patterns over the first
   * user message (`{ firstMessage }`). A choice that is not one of `workflows`, a selector that throws or runs out of
   * `selectTimeoutMs`, are counted `selection` misses (logged once) and the session runs under `default`.
   * @default every session runs under `default`
   */
  select?: SelectWorkflow;
  /** Budget of one call of a `select` function, in milliseconds. @default 5000 */
  selectTimeoutMs?: number;
  /**
   * Where sessions, and each session's choice of workflow, live: one store for all the workflows, each keeping its
   * sessions under `wf:<id>:` and the choices under `wf-choice:`. A store shared between processes (Redis) shares the
   * choice too: every process runs a session under the same workflow.
   * @default an in-memory store with a 1 hour TTL and at most 10,000 entries (a session and its choice are two)
   */
  store?: SessionStore<unknown>;
  /** Not with `workflows`: pass the single workflow to a monitor of its own. */
  workflow?: never;
}

/** A monitor of several workflows (`createMonitor({ workflows })`): a monitor whose sessions each run under one. */
export interface WorkflowsMonitor extends Monitor {
  /** The default workflow. */
  readonly workflow: Workflow;
  /** The workflows by id. */
  readonly workflows: Readonly<Record<string, Workflow>>;
  /** The id of the default workflow. */
  readonly defaultWorkflow: string;
  /**
   * Chooses the session's workflow now, with the session's attributes for `select`, and returns its id. A session
   * whose workflow is already chosen keeps it (the attributes are then not read): the choice is made once per session.
   */
  startSession(sessionId: string, options?: { attributes?: Record<string, unknown> }): Promise<string>;
  /** The id of the session's workflow; `undefined` while none is chosen (no call on the session yet). */
  workflowOf(sessionId: string): Promise<string | undefined>;
}
