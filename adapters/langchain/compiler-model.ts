import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AIMessage } from '@langchain/core/messages';
import { withUsage, type CompilerModel } from '../../src/index.js';

/** Options of {@link compilerModel}. */
export interface LangChainCompilerModelOptions {
  /** How the provider is asked for structured output (`jsonSchema`, `functionCalling`, ...). @default the model's own default */
  method?: 'jsonSchema' | 'functionCalling' | 'jsonMode';
}

/**
 * The compiler's model from a LangChain chat model: `withStructuredOutput` over the compiler's JSON Schema, with the
 * raw message kept so its token usage is reported. Works with any chat model that supports structured output,
 * including what `initChatModel('openai:gpt-4o-mini')` returns.
 * @example
 * const { yaml } = await compileWorkflow(policy, { model: compilerModel(new ChatOpenAI({ model: 'gpt-4o-mini' })) });
 */
export function compilerModel(chatModel: BaseChatModel, { method }: LangChainCompilerModelOptions = {}): CompilerModel {
  return async function langChainCompilerModel(messages, schema) {
    const structured = chatModel.withStructuredOutput(schema, { includeRaw: true, name: 'panoptes_draft', ...(method ? { method } : {}) });
    const output = (await structured.invoke(messages.map(({ role, content }) => [role === 'assistant' ? 'ai' : role, content] as [string, string]))) as unknown;
    // With `includeRaw` a model answers { raw, parsed }; a test double may answer the object itself.
    if (typeof output === 'object' && output !== null && 'raw' in output && 'parsed' in output) {
      const { raw, parsed } = output as { raw: AIMessage; parsed: unknown };
      const usage = raw.usage_metadata;
      // A parse failure leaves `parsed` null: hand the text on so the compiler can ask for JSON again.
      const value = parsed ?? (typeof raw.content === 'string' ? raw.content : JSON.stringify(raw.content));
      return usage ? withUsage(value, { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens }) : value;
    }
    return output;
  };
}
