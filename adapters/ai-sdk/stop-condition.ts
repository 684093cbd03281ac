import type { StepResult, ToolSet } from 'ai';
import { InvalidOptionError, type LoopToolResult, type Monitor } from '../../src/index.js';
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
 * What {@link panoptesStopCondition} returns: a `StopCondition` for every tool set at once. Generic in its call, not
 * in its type, so it fits `StopCondition<TOOLS>` for whatever `TOOLS` `generateText` infers, also when the options
 * are built in a variable first: TypeScript then infers the tools from the variable, not from the condition, and a
 * `StopCondition<ToolSet>` would not fit one of a narrower tool set (a step result is not covariant in its tools).
 */
export type PanoptesStopCondition = <TOOLS extends ToolSet>(options: { steps: Array<StepResult<TOOLS>> }) => Promise<boolean>;

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
 * // or with the options in a variable first
 * const options = { model, tools, prompt, stopWhen: [stepCountIs(10), panoptesStopCondition({ monitor })] };
 * await generateText(options);
 */
export function panoptesStopCondition({ monitor, sessionId }: PanoptesStopConditionOptions): PanoptesStopCondition {
  if (typeof monitor?.peek !== 'function') throw new InvalidOptionError({ parameter: 'monitor', value: monitor, fix: 'Pass the result of createMonitor().' });
  return async function panoptesBlockIsDue<TOOLS extends ToolSet>({ steps }: { steps: Array<StepResult<TOOLS>> }) {
    const last = steps.at(-1);
    const id = sessionId ?? sessionIdFromMetadata(last?.providerMetadata);
    if (id === undefined) return false;
    try {
      // The step's tool results reach the monitor only with the next call's prompt; a loop they complete (the same
      // call failing again) must count now, or this condition could not stop it. The detector ignores results it
      // has already seen, so the next call does not count them twice.
      if (last) await monitor.observeToolResults(id, loopToolResults(last.content));
      return (await monitor.peek(id)).action === 'block';
    } catch {
      return false; // a failing store must not end the agent's run
    }
  };
}

/** A step's tool results as the loop detector reads them: errors (refusals among them) count as failures. */
function loopToolResults<TOOLS extends ToolSet>(content: StepResult<TOOLS>['content']): LoopToolResult[] {
  return content.flatMap((part): LoopToolResult[] => {
    if (part.type === 'tool-result') {
      return [{ toolCallId: part.toolCallId, name: part.toolName, content: part.output, isError: false }];
    }
    if (part.type === 'tool-error') {
      const { error } = part;
      return [{ toolCallId: part.toolCallId, name: part.toolName, content: error instanceof Error ? error.message : String(error), isError: true }];
    }
    return [];
  });
}
