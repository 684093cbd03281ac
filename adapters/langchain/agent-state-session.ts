import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { Command, isCommand, ReducedValue, StateSchema } from '@langchain/langgraph';
import { z } from 'zod';
import { blockOf } from './block-message.js';
import { unrestoredCalls } from './refused-calls.js';

/**
 * The agent-state field the middleware adds when its monitor comes from `createGraphMonitor`: the thread's session
 * as JSON text, as `PanoptesAnnotation` holds it in a hand-built graph, so `createAgent`'s checkpointer persists it
 * with the messages. Writes of one step (tool calls run side by side) keep the last; a step that writes none
 * leaves it as it was. `null` until the first write.
 */
export const panoptesAgentState = new StateSchema({
  panoptes: new ReducedValue(z.string().nullable().default(null), { reducer: (current: string | null, next: string | null) => next ?? current }),
});

/** The session text an agent state holds, if any. */
export function sessionTextOf(state: unknown): string | null | undefined {
  return (state as { panoptes?: string | null } | undefined)?.panoptes;
}

/**
 * A model call's answer with the session written into agent state. When the model ran, the agent already takes its
 * answer from the model (also through other middleware), so the command only writes the session; when Panoptes
 * answered instead (a block) or changed the answer (calls refused at once), the command carries that answer too,
 * which replaces the model's by its id.
 */
export function modelAnswerWithSession(answer: BaseMessage, panoptes: string): Command {
  return new Command({ update: blockOf(answer) || unrestoredCalls(answer).length > 0 ? { messages: [answer], panoptes } : { panoptes } });
}

/** A tool call's result (its message, or the tool's own command) with the session written into agent state. */
export function toolResultWithSession(result: ToolMessage | Command, panoptes: string): Command {
  if (!isCommand(result)) return new Command({ update: { messages: [result], panoptes } });
  const { update } = result;
  // A command's update is an object of channel values or a list of [channel, value] pairs.
  const merged = update === undefined ? { panoptes } : Array.isArray(update) ? [...update, ['panoptes', panoptes] as [string, unknown]] : { ...update, panoptes };
  return new Command({ graph: result.graph, goto: result.goto, resume: result.resume, update: merged });
}
