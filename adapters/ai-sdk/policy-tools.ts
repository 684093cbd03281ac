import { jsonSchema, tool, type Tool } from 'ai';
import { createPolicyTools, type Sentinel } from '../../src/index.js';

/**
 * The sentinel's tools for the model (query the policy, set what the conversation is about, record the customer's
 * answer) as AI SDK tools, named as the sentinel's refusal texts name them. An answer the policy could not give
 * (a goal that does not parse, an unknown name) reaches the model as an `error-text` result it can correct.
 * @example
 * const tools = { ...guardTools(airlineTools, { sentinel }), ...policyTools(sentinel) };
 * await generateText({ model, tools, prompt, stopWhen: stepCountIs(10) });
 */
export function policyTools(sentinel: Sentinel): Record<string, Tool<Record<string, string>, PolicyToolOutput>> {
  return Object.fromEntries(
    createPolicyTools(sentinel).map((policyTool) => [
      policyTool.name,
      tool<Record<string, string>, PolicyToolOutput>({
        description: policyTool.description,
        inputSchema: jsonSchema<Record<string, string>>(policyTool.parameters),
        execute: (input) => policyTool.execute(input),
        toModelOutput: ({ output }) => (output.isError ? { type: 'error-text', value: output.content } : { type: 'text', value: output.content }),
      }),
    ]),
  );
}

/** What a policy tool returns: its text for the model, and whether it is an error. */
export interface PolicyToolOutput {
  content: string;
  isError: boolean;
}
