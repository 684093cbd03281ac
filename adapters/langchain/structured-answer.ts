/**
 * One structured-output call of a LangChain chat model, as the compiler and the judge make it: the raw message kept
 * for its token usage, and a parse failure handed on as text for the caller to report or ask again.
 * @module
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage } from '@langchain/core/messages';
import { withUsage } from '../../src/index.js';

/** Asks `chatModel` for an answer of `schema` (a JSON Schema or zod), named `name` for the provider's tool. */
export async function structuredAnswer(
  chatModel: BaseChatModel,
  messages: ReadonlyArray<{ role: string; content: string }>,
  schema: Parameters<BaseChatModel['withStructuredOutput']>[0],
  { name, method, signal }: { name: string; method?: 'functionCalling' | 'jsonMode' | 'jsonSchema'; signal?: AbortSignal },
): Promise<unknown> {
  const structured = chatModel.withStructuredOutput(schema, { includeRaw: true, name, ...(method ? { method } : {}) });
  const output = (await structured.invoke(
    messages.map(({ role, content }) => [role === 'assistant' ? 'ai' : role, content] as [string, string]),
    signal ? { signal } : undefined,
  )) as unknown;
  // With `includeRaw` a model answers { raw, parsed }; a test double may answer the object itself.
  if (typeof output === 'object' && output !== null && 'raw' in output && 'parsed' in output) {
    const { raw, parsed } = output as { raw: AIMessage; parsed: unknown };
    const usage = raw.usage_metadata;
    // A parse failure leaves `parsed` null: the text goes on, for the caller to report or ask for JSON again.
    const value = parsed ?? (typeof raw.content === 'string' ? raw.content : JSON.stringify(raw.content));
    return usage ? withUsage(value, { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens }) : value;
  }
  return output;
}
