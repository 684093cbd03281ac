import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { CompilerModel } from '../../src/index.js';
import { structuredAnswer } from './structured-answer.js';

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
  return (messages, schema) => structuredAnswer(chatModel, messages, schema, { name: 'panoptes_draft', ...(method ? { method } : {}) });
}
