import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { initChatModel } from 'langchain/chat_models/universal';
import type { JudgeModel, JudgeModelRequest } from '../../src/index.js';
import { structuredAnswer } from './structured-answer.js';

/** Options of {@link judgeModel}. */
export interface LangChainJudgeModelOptions {
  /** How the provider is asked for structured output (`jsonSchema`, `functionCalling`, ...). @default the model's own default */
  method?: 'jsonSchema' | 'functionCalling' | 'jsonMode';
  /** Names the model in cache keys, cassettes and spans. @default the `provider:model` string, else the chat model's `model` field, else its type */
  modelId?: string;
}

/**
 * The judge's model from a LangChain chat model, or from a `provider:model` string resolved by LangChain's
 * `initChatModel` on the first judgment (temperature 0; the provider's package must be installed), as
 * `panoptes compile --model` resolves it. Asks through `withStructuredOutput` over the verdict's JSON Schema, with
 * the raw message kept for its token usage, and the judgment's abort signal passed on so a timed-out call stops. Works with
 * any chat model that supports structured output, including what `initChatModel('openai:gpt-4o-mini')` returns.
 * @example
 * const judge = createJudge({ model: judgeModel(new ChatOpenAI({ model: 'gpt-4o-mini', temperature: 0 })), rubrics });
 */
export function judgeModel(model: BaseChatModel | string, { method, modelId }: LangChainJudgeModelOptions = {}): JudgeModel {
  const id = modelId ?? (typeof model === 'string' ? model : ((model as { model?: unknown }).model ?? model._llmType()));
  let loading: Promise<BaseChatModel> | undefined;
  const chatModelOf = (): Promise<BaseChatModel> | BaseChatModel => {
    if (typeof model !== 'string') return model;
    // Loaded once; a failure is not kept, so the next judgment tries again (each failure is that judgment's error).
    loading ??= initChatModel(model, { temperature: 0 }).then(
      (loaded) => loaded as unknown as BaseChatModel,
      (error: unknown) => {
        loading = undefined;
        throw new Error(`cannot load the judge model '${model}': ${(error as Error).message}; write it as provider:name, e.g. openai:gpt-4o-mini, and install the provider's package`);
      },
    );
    return loading;
  };
  return Object.assign(
    async function langChainJudgeModel({ messages, jsonSchema, signal }: JudgeModelRequest) {
      const chatModel = await chatModelOf();
      return structuredAnswer(chatModel, messages, jsonSchema, { name: 'panoptes_verdict', signal, ...(method ? { method } : {}) });
    },
    { modelId: String(id) },
  );
}
