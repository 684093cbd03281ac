import { createMonitor as createWorkflowMonitor } from './monitor.js';
import type { Monitor, MonitorOptions } from './types.js';
import { createWorkflowsMonitor } from './workflows-monitor.js';
import type { WorkflowsMonitor, WorkflowsMonitorOptions } from './workflows-types.js';

/**
 * Creates a monitor of several workflows: each session runs under one of `workflows`, chosen by `select` (a function,
 * a session attribute, or patterns over the first user message) the first time one of its calls needs one, and kept
 * with the session in the store, so every process that shares the store runs it under the same workflow. Reports,
 * histories and `validNextStates` carry the chosen `workflowId`; spans carry `panoptes.workflow.id`.
 * @throws {InvalidOptionError} for no workflows, an id or a value that is not one, a `default` that names none of
 * them, a selector of no known form, or any invalid option of a monitor.
 * @example
 * const monitor = createMonitor({
 *   workflows: { support, refunds },
 *   default: 'support',
 *   select: { firstMessage: { refunds: ['refund', 'money back'] } },
 * });
 */
export function createMonitor(options: WorkflowsMonitorOptions): WorkflowsMonitor;
/**
 * Creates a workflow monitor: give it each model request and response of a session, and it knows which state the
 * agent is in, which constraints hold, and what to inject into or refuse on the next call.
 *
 * Calls for one session run one at a time, in the order made; sessions are independent. Panoptes' own failures
 * (embedder, store, listeners) never fail a call: they are counted and logged once per cause.
 * @throws {InvalidOptionError} when `historyLimit` is not a positive whole number or Infinity.
 * @example
 * const monitor = createMonitor({ workflow: await loadWorkflow('support.yaml') });
 * const before = await monitor.beforeModel('s1', { messages });
 * if (before.action === 'block') throw before.error;
 * const response = await callModel(before.messages);
 * await monitor.afterModel('s1', { content: response.text, toolCalls: response.toolCalls });
 */
export function createMonitor(options: MonitorOptions): Monitor;
export function createMonitor(options: MonitorOptions | WorkflowsMonitorOptions): Monitor {
  return typeof options === 'object' && options !== null && 'workflows' in options && options.workflows !== undefined ? createWorkflowsMonitor(options) : createWorkflowMonitor(options as MonitorOptions);
}
