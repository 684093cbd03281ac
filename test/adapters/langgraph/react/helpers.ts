import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';

export const answerSchema = z.object({ answer: z.string(), confidence: z.number().min(0).max(1) });

/** An AI message calling tools, with ids. */
export function calls(...list: Array<[name: string, args: Record<string, unknown>, id?: string]>): AIMessage {
  return new AIMessage({ content: '', tool_calls: list.map(([name, args, id], index) => ({ name, args, id: id ?? `${name}-${index}-${Math.random().toString(36).slice(2, 8)}`, type: 'tool_call' as const })) });
}

/** An AI message that reports its token usage, as providers do. */
export function withUsage(message: AIMessage, input: number, output: number, model = 'gpt-4o-mini'): AIMessage {
  message.usage_metadata = { input_tokens: input, output_tokens: output, total_tokens: input + output };
  message.response_metadata = { ...message.response_metadata, model_name: model };
  return message;
}

/** A search tool that counts its runs and answers with the query. */
export function searchTool(delayMs = 0) {
  const runs: string[] = [];
  const search = tool(
    async ({ query }: { query: string }) => {
      runs.push(query);
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return `Results for ${query}: section 2 requires prior authorization.`;
    },
    { name: 'search', description: 'Search the policy.', schema: z.object({ query: z.string() }) },
  );
  return { search, runs };
}

/** An error as the OpenAI SDK throws it: a message and an HTTP status. */
export function httpError(status: number, message = `HTTP ${status}`): Error {
  return Object.assign(new Error(message), { status, name: status === 429 ? 'RateLimitError' : 'APIError' });
}

/** The text of the last human message a model received. */
export function lastHuman(messages: BaseMessage[]): string {
  return String(messages.findLast((message) => message.getType() === 'human')?.content ?? '');
}

export const noWait = { sleep: async () => {} };

/** A model that reads its request on every call (any number of calls, any number of concurrent runs). */
export function readingModel(decide: (messages: BaseMessage[]) => AIMessage | Error, calls = 500) {
  const model = fakeModelFor();
  for (let index = 0; index < calls; index++) model.respond(decide as never);
  return model;
}

import { fakeModel as fakeModelFor } from '@langchain/core/testing';
