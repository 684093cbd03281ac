import { jsonSchema, tool, type Tool } from 'ai';
import { createPolicyTools, type Logger, type Monitor, type SentinelSource } from '../../src/index.js';
import { sessionOfCall, type ToolSessionId } from './tool-call-sessions.js';

/** Options of {@link policyTools}: how a call finds its conversation, for per-conversation sentinels. */
export interface PolicyToolsOptions {
  /** The conversation, or a function of the execution options. */
  sessionId?: ToolSessionId;
  /** Without `sessionId`: the monitor whose `panoptesMiddleware` recorded which session asked for each call. */
  monitor?: Monitor;
  /** Where the tools' own first failure is reported (the model reads that the policy could not be consulted). @default console */
  logger?: Logger;
}

/**
 * The sentinel's tools for the model (query the policy, set what the conversation is about, record the customer's
 * answer) as AI SDK tools, named as the sentinel's refusal texts name them. An answer the policy could not give
 * (a goal that does not parse, an unknown name) reaches the model as an `error-text` result it can correct. With
 * per-conversation sentinels, each call acts on its conversation's sentinel (see {@link PolicyToolsOptions}).
 * @example
 * const tools = { ...guardTools(airlineTools, { sentinel }), ...policyTools(sentinel) };
 * await generateText({ model, tools, prompt, stopWhen: stepCountIs(10) });
 */
export function policyTools(sentinel: SentinelSource, { sessionId, monitor, logger }: PolicyToolsOptions = {}): Record<string, Tool<Record<string, string>, PolicyToolOutput>> {
  return Object.fromEntries(
    createPolicyTools(sentinel, logger ? { logger } : {}).map((policyTool) => [
      policyTool.name,
      tool<Record<string, string>, PolicyToolOutput>({
        description: policyTool.description,
        inputSchema: jsonSchema<Record<string, string>>(policyTool.parameters),
        execute: (input, options) => policyTool.execute(input, { sessionId: sessionOfCall(options, sessionId, monitor) }),
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
