import type { StopCondition, ToolSet } from 'ai';
import { InvalidOptionError, takeInterventions, type Monitor } from '../../src/index.js';
import { sessionIdFromMetadata } from './session-id.js';

/** Options of {@link panoptesStopCondition}. */
export interface PanoptesStopConditionOptions {
  /** The monitor the middleware uses. */
  monitor: Monitor;
  /**
   * The session to watch. When absent, the session named in the last step's `providerMetadata.panoptes.sessionId`,
   * which `panoptesMiddleware` writes into every response.
   * @default undefined
   */
  sessionId?: string;
}

/**
 * A `stopWhen` condition that ends a tool loop when the monitor would block the next model call (a critical
 * violation, a `block:` intervention, or guidance escalated past its last strategy). `generateText` then resolves
 * with the steps so far instead of rejecting with `WorkflowViolationError` on the next call.
 *
 * It reads the session's committed state: a tool call that ran without `guardTools` enters its state at the next
 * call, so a block it causes shows as that call's `WorkflowViolationError`, not as a stop here.
 * @throws {InvalidOptionError} at construction when `monitor` is not a monitor.
 * @example
 * await generateText({ model, tools, prompt, stopWhen: [stepCountIs(10), panoptesStopCondition({ monitor })] });
 */
export function panoptesStopCondition<TOOLS extends ToolSet = ToolSet>({ monitor, sessionId }: PanoptesStopConditionOptions): StopCondition<TOOLS> {
  if (typeof monitor?.session !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  return async function panoptesBlockIsDue({ steps }) {
    const id = sessionId ?? sessionIdFromMetadata(steps.at(-1)?.providerMetadata);
    if (id === undefined) return false;
    try {
      const session = await monitor.session(id);
      // A closed session restarts on the next call, with nothing due; an active one blocks if its plan says so.
      return session?.workflow.status === 'active' && takeInterventions(monitor.workflow, session.workflow).plan.block !== undefined;
    } catch {
      return false; // a failing store must not end the agent's run (DESIGN.md section 12)
    }
  };
}
