/**
 * What a proxied request is checked against: one workflow's monitor, its placement of conversations and, optionally,
 * its rulebase. A proxy serving several workflows picks one per request (selection.ts) before the session is looked
 * up; each has its own sessions, so a session id names a different session under each workflow.
 * @module
 */
import type { Monitor } from '../../monitor/index.js';
import type { ConversationPlacement } from '../../session/index.js';
import type { ProxyRules } from '../rules/index.js';

/** One workflow as the proxy serves it. */
export interface WorkflowPipeline {
  /** The id it is selected, logged and counted by. */
  id: string;
  monitor: Monitor;
  /** Where a request that names no session is placed (the monitor's own registry, or a shared one). */
  conversations: ConversationPlacement;
  /** The rulebase that decides each tool call the workflow allows. */
  rules?: ProxyRules;
  /** Labels its metrics carry: `{ workflow: id }` when the proxy serves several workflows, else none. */
  labels: Readonly<Record<string, string>>;
}
