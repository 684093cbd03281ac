import type { CompilerMessage, TokenUsage } from '../authoring/model.js';
import type { Rubric } from './rubric.js';

/** One message to the judge's model (the same shape the workflow compiler sends). */
export type JudgeMessage = CompilerMessage;

/** What the judge asks its model for one judgment. Adapters read `messages` and `jsonSchema`; offline judges read the rest. */
export interface JudgeModelRequest {
  /** The system prompt and the judged material, ready for a chat model. */
  messages: JudgeMessage[];
  /** The JSON Schema the answer must follow (criteria scores, reasoning, evidence, confidence). */
  jsonSchema: Record<string, unknown>;
  /** The rubric being judged. */
  rubric: Rubric;
  /** The judged material as the model sees it: what evidence must quote. */
  judged: string;
  /** The cache key of this judgment: rubric id and version, model id, normalised input. Cassettes are keyed by it. */
  key: string;
  /** Aborted when the judgment times out: a model that honours it stops working for nothing. */
  signal: AbortSignal;
}

/**
 * The small model interface the judge needs: a request in, the parsed JSON answer (or its text) out. To report
 * token usage, return `withUsage(answer, usage)`. Build one from a LangChain chat model or an AI SDK model with
 * `judgeModel` from `panoptes/langchain` or `panoptes/ai-sdk`; offline, use `scriptedJudge` or `recordedJudge`.
 * `modelId` names the model in cache keys, cassettes and spans.
 */
export interface JudgeModel {
  (request: JudgeModelRequest): Promise<unknown>;
  readonly modelId?: string;
}

export type { TokenUsage };

/**
 * Names a model function for cache keys and spans.
 * @example
 * const model = namedJudgeModel('openai:gpt-4o-mini', async (request) => callProvider(request.messages));
 */
export function namedJudgeModel(modelId: string, model: (request: JudgeModelRequest) => Promise<unknown>): JudgeModel {
  return Object.assign((request: JudgeModelRequest) => model(request), { modelId });
}
