/**
 * The conversations the adapter suites run through each host: the example support workflow, a `verify_identity`
 * tool, and a scripted model that answers from a script in turn and never runs out.
 */
import { readFileSync } from 'node:fs';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { parseWorkflow } from 'panoptes';

export const supportWorkflow = parseWorkflow(readFileSync(new URL('../examples/workflows/customer-support.yaml', import.meta.url), 'utf8'));

export const verifyIdentity = tool(async ({ customer_id }) => `Customer ${customer_id} verified.`, {
  name: 'verify_identity',
  description: 'Verify the customer',
  schema: z.object({ customer_id: z.string() }),
});

const ANSWER = 'Glad I could help. Is there anything else I can help with?';

let toolCalls = 0;

/**
 * One model call answering in text; and a tool call (checked before it runs), then the answer. Each tool call has an
 * id of its own, as a model's do: LangGraph's `ToolNode` skips a call whose id a tool message in the thread answers.
 */
export const conversations = {
  'one model call (text answer)': { script: [() => new AIMessage(ANSWER)], modelCalls: 1 },
  'tool call checked, then the answer': {
    script: [() => new AIMessage({ content: '', tool_calls: [{ id: `call_${++toolCalls}`, name: 'verify_identity', args: { customer_id: '42' }, type: 'tool_call' }] }), () => new AIMessage(ANSWER)],
    modelCalls: 2,
  },
} as const;

/** A scripted model good for `calls` calls: each answers from the script, in turn. */
export function scriptedModel(script: ReadonlyArray<() => AIMessage>, calls: number) {
  const model = fakeModel();
  for (let i = 0; i < calls; i++) model.respond(script[i % script.length]!);
  return model;
}
