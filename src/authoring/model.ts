import type { TokenUsage } from '../react/index.js';

/** Tokens one model call used (the same shape the ReAct controller counts). */
export type { TokenUsage };

/** One message to the compiler's model. */
export interface CompilerMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * The small model interface the compiler needs: the conversation so far and the JSON Schema the answer must follow,
 * in; the parsed JSON object (or its text) out. Adapters build one from a LangChain chat model
 * (`panoptes/langchain`'s `compilerModel`, structured output) or an AI SDK model (`panoptes/ai-sdk`'s `compilerModel`,
 * `generateObject`); a test passes a scripted function. To report token usage, return `withUsage(object, usage)`.
 */
export type CompilerModel = (messages: CompilerMessage[], jsonSchema: Record<string, unknown>) => Promise<unknown>;

const USAGE = Symbol.for('panoptes.compiler-usage');

/** A model answer with the tokens it used; what adapters return so the compiler can add the usage up. */
export interface AnswerWithUsage {
  readonly [USAGE]: true;
  readonly value: unknown;
  readonly usage: TokenUsage;
}

/**
 * Wraps a model's answer with its token usage.
 * @example
 * const model: CompilerModel = async (messages, schema) => withUsage(await callProvider(messages, schema), { inputTokens: 812, outputTokens: 640 });
 */
export function withUsage(value: unknown, usage: TokenUsage): AnswerWithUsage {
  return { [USAGE]: true, value, usage };
}

/** The answer and its usage, whether or not the model wrapped it. */
export function unwrapAnswer(answer: unknown): { value: unknown; usage?: TokenUsage } {
  if (typeof answer === 'object' && answer !== null && (answer as Record<symbol, unknown>)[USAGE] === true) {
    const wrapped = answer as AnswerWithUsage;
    return { value: wrapped.value, usage: wrapped.usage };
  }
  return { value: answer };
}
