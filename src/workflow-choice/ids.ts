/**
 * Workflow ids: the names a monitor or a proxy that serves several workflows chooses, stores, logs and labels them by.
 * @module
 */

/** What a workflow id may be: letters, digits, `_` and `-`, 1 to 64 of them (no `:`, so a key prefix made of one is unambiguous). */
export const WORKFLOW_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Whether `value` can be a workflow id.
 * @example
 * isWorkflowId('refunds') // true
 * isWorkflowId('re funds') // false
 */
export function isWorkflowId(value: unknown): value is string {
  return typeof value === 'string' && WORKFLOW_ID.test(value);
}

/**
 * The key prefix of a workflow's sessions where several workflows share one store: `wf:<id>:`. The same session id
 * then names a different session under each workflow, and none collides with another's.
 * @example
 * workflowNamespace('refunds') // 'wf:refunds:'
 */
export function workflowNamespace(id: string): string {
  return `wf:${id}:`;
}
