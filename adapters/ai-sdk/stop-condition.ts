import type { StopCondition, ToolSet } from 'ai';
import { InvalidOptionError, type Monitor } from '../../src/index.js';
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
 * violation, a `block:` intervention, guidance escalated past its last strategy, or a loop that reached `stop`).
 * `generateText` then resolves with the steps so far instead of rejecting on the next call.
 *
 * It asks `monitor.peek`, which uses nothing up: the interventions stay due, and a tool call that ran without
 * `guardTools` counts as entered, as the next call will count it.
 * @throws {InvalidOptionError} at construction when `monitor` is not a monitor.
 * @example
 * await generateText({ model, tools, prompt, stopWhen: [stepCountIs(10), panoptesStopCondition({ monitor })] });
 */
export function panoptesStopCondition<TOOLS extends ToolSet = ToolSet>({ monitor, sessionId }: PanoptesStopConditionOptions): StopCondition<TOOLS> {
  if (typeof monitor?.peek !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  return async function panoptesBlockIsDue({ steps }) {
    const id = sessionId ?? sessionIdFromMetadata(steps.at(-1)?.providerMetadata);
    if (id === undefined) return false;
    try {
      return (await monitor.peek(id)).action === 'block';
    } catch {
      return false; // a failing store must not end the agent's run (DESIGN.md section 12)
    }
  };
}
