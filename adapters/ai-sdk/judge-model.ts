import { generateText, jsonSchema as toJsonSchema, NoObjectGeneratedError, Output, type LanguageModel } from 'ai';
import { withUsage, type JudgeModel, type JudgeModelRequest } from '../../src/index.js';

/** Options of {@link judgeModel}. */
export interface AiSdkJudgeModelOptions {
  /** Sampling temperature; 0 keeps verdicts repeatable. @default 0 */
  temperature?: number;
  /** Retries of a failed call, as the AI SDK counts them (inside the judge's timeout). @default 1 */
  maxRetries?: number;
  /** Names the model in cache keys, cassettes and spans. @default `provider:modelId`, or the model string */
  modelId?: string;
}

/**
 * The judge's model from an AI SDK model: `generateText` with an object output over the verdict's JSON Schema, the
 * judgment's abort signal passed on, token usage reported. An answer the AI SDK cannot parse is handed on as its
 * text, so the judge reports it as an invalid answer (the rubric's `on_error`).
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const judge = createJudge({ model: judgeModel(openai('gpt-4o-mini')), rubrics });
 */
export function judgeModel(model: LanguageModel, { temperature = 0, maxRetries = 1, modelId }: AiSdkJudgeModelOptions = {}): JudgeModel {
  const id = modelId ?? (typeof model === 'string' ? model : `${model.provider}:${model.modelId}`);
  return Object.assign(
    async function aiSdkJudgeModel({ messages, jsonSchema, signal }: JudgeModelRequest) {
      try {
        const result = await generateText({ model, messages, temperature, maxRetries, abortSignal: signal, output: Output.object({ schema: toJsonSchema(jsonSchema) }) });
        return withUsage(result.output, { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 });
      } catch (error) {
        if (NoObjectGeneratedError.isInstance(error) && typeof error.text === 'string') {
          return withUsage(error.text, { inputTokens: error.usage?.inputTokens ?? 0, outputTokens: error.usage?.outputTokens ?? 0 });
        }
        throw error;
      }
    },
    { modelId: id },
  );
}
