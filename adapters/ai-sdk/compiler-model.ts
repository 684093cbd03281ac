import { generateText, jsonSchema, NoObjectGeneratedError, Output, type LanguageModel } from 'ai';
import { withUsage, type CompilerModel } from '../../src/index.js';

/** Options of {@link compilerModel}. */
export interface AiSdkCompilerModelOptions {
  /** Sampling temperature; low keeps drafts close to the policy's words. @default 0 */
  temperature?: number;
  /** Retries of a failed call, as the AI SDK counts them. @default 2 */
  maxRetries?: number;
}

/**
 * The compiler's model from an AI SDK model: `generateText` with an object output over the compiler's JSON Schema
 * (the AI SDK 6 form of `generateObject`). An answer the AI SDK cannot parse is handed on as its text, so the
 * compiler reports it to the model as "not JSON" and asks again instead of failing; token usage is reported.
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const { yaml } = await compileWorkflow(policy, { model: compilerModel(openai('gpt-4o-mini')) });
 */
export function compilerModel(model: LanguageModel, { temperature = 0, maxRetries = 2 }: AiSdkCompilerModelOptions = {}): CompilerModel {
  return async function aiSdkCompilerModel(messages, schema) {
    try {
      const result = await generateText({ model, messages, temperature, maxRetries, output: Output.object({ schema: jsonSchema(schema) }) });
      return withUsage(result.output, { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 });
    } catch (error) {
      if (NoObjectGeneratedError.isInstance(error) && typeof error.text === 'string') {
        return withUsage(error.text, { inputTokens: error.usage?.inputTokens ?? 0, outputTokens: error.usage?.outputTokens ?? 0 });
      }
      throw error;
    }
  };
}
