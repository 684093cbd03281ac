import { ToolMessage } from '@langchain/core/messages';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { Command } from '@langchain/langgraph';
import { z } from 'zod';
import { InvalidOptionError, type Clock } from '../../../src/index.js';
import type { ReactControllerState } from './state.js';
import type { ToolCallRecord } from './tool-record.js';

/** The name of the tool that ends a ReAct run with its answer. */
export const FINISH_TOOL = 'finish';

/** A zod object schema (zod 4's `_zod.def`, or zod 3's `_def.typeName`) with `safeParse`. */
export interface FinishSchema<Output = unknown> {
  safeParse(value: unknown): { success: true; data: Output } | { success: false; error: unknown };
}

/** @throws {InvalidOptionError} unless `schema` is a zod object schema. */
export function assertFinishSchema(schema: unknown): asserts schema is FinishSchema {
  const zod4 = (schema as { _zod?: { def?: { type?: string } } } | undefined)?._zod?.def?.type;
  const zod3 = (schema as { _def?: { typeName?: string } } | undefined)?._def?.typeName;
  if (zod4 === 'object' || zod3 === 'ZodObject') return;
  const kind = zod4 ?? zod3?.replace(/^Zod/, '').toLowerCase() ?? (schema === undefined ? undefined : typeof schema);
  throw new InvalidOptionError({
    parameter: 'finishSchema',
    value: kind === undefined ? undefined : `a ${kind} schema`,
    fix: 'Pass a zod object schema, such as z.object({ answer: z.string() }): finish is a tool, and tool arguments are an object.',
  });
}

/** The message the model reads when its `finish` arguments are invalid: the schema's issues, and what to do. */
export function invalidFinishText(error: unknown): string {
  const issues = (error as { issues?: Array<{ path?: PropertyKey[]; message?: string }> }).issues;
  const lines = Array.isArray(issues) ? issues.map((issue) => `- ${issue.path?.length ? issue.path.map(String).join('.') : '(arguments)'}: ${issue.message}`) : [String(error)];
  return `Your finish call was not accepted: its arguments do not match the schema.\n${lines.join('\n')}\nCall finish again with corrected arguments.`;
}

/**
 * What a `finish` call with these arguments does: a valid call records the parsed arguments as the run's output and
 * ends the run; an invalid one is answered with the schema's issues (marked `invalidFinish`, which the repair count
 * reads) and the run goes on.
 */
export function finishOutcome(schema: FinishSchema, args: unknown, id: string, clock: Clock): { message: ToolMessage; react?: Partial<ReactControllerState> } {
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    const record: ToolCallRecord = { durationMs: 0, invalidFinish: true };
    return { message: new ToolMessage({ content: invalidFinishText(parsed.error), name: FINISH_TOOL, tool_call_id: id, status: 'error', response_metadata: { panoptes: record } }) };
  }
  const record: ToolCallRecord = { durationMs: 0 };
  return { message: new ToolMessage({ content: 'Answer recorded.', name: FINISH_TOOL, tool_call_id: id, response_metadata: { panoptes: record } }), react: { status: 'finished', output: parsed.data, endedAt: clock.now() } };
}

/**
 * The `finish` tool as the graph runs it. Its own schema accepts any object, so an invalid call reaches it and is
 * answered with the schema's issues rather than LangChain's generic parsing error; the model is offered the user's
 * schema through {@link finishDefinition}.
 */
export function finishTool(schema: FinishSchema, clock: Clock): StructuredToolInterface {
  return tool(
    async (args: unknown, runtime: { toolCall?: { id?: string } }) => {
      const { message, react } = finishOutcome(schema, args, runtime.toolCall?.id ?? '', clock);
      return react ? new Command({ update: { react, messages: [message] } }) : message;
    },
    { name: FINISH_TOOL, description: 'Give your final answer.', schema: z.object({}).passthrough() },
  ) as unknown as StructuredToolInterface;
}

/** `finish` as the model is offered it: the user's schema and description. */
export function finishDefinition(schema: FinishSchema, description: string): { name: string; description: string; schema: FinishSchema } {
  return { name: FINISH_TOOL, description, schema };
}
