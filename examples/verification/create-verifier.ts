/**
 * The example's verifier: `verify.ts` runs it, `graph.ts` serves it. Offline by default: the model is a scripted
 * `fakeModel()` (see `scripted-verifier.ts`); with `OPENAI_API_KEY` set, `gpt-4o-mini`. When the model fails for
 * good, the rules of `rule-fallback.ts` decide from the case's fields.
 */
import { fileURLToPath } from 'node:url';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createLoopDetector, loadWorkflow } from 'panoptes';
import { createGraphMonitor, createVerificationGraph } from 'panoptes/langgraph';
import { policyRetriever } from './policy-retriever.js';
import { ruleFallback } from './rule-fallback.js';
import { scriptedVerifier } from './scripted-verifier.js';

/** The chat model: `gpt-4o-mini` with `OPENAI_API_KEY` set, else the scripted one. */
export async function chatModel(): Promise<{ model: BaseChatModel; name: string }> {
  if (!process.env.OPENAI_API_KEY) return { model: scriptedVerifier() as unknown as BaseChatModel, name: 'scripted model (offline)' };
  const { ChatOpenAI } = await import('@langchain/openai');
  return { model: new ChatOpenAI({ model: 'gpt-4o-mini', temperature: 0 }), name: 'gpt-4o-mini' };
}

/**
 * The verifier: the workflow monitor and the loop detector plugged in, budgets, a short retry schedule, the
 * rule-based fallback. A deployment brings its own checkpointer; a script passes one.
 */
export async function createVerifier({ checkpointer, model }: { checkpointer?: BaseCheckpointSaver; model?: BaseChatModel } = {}) {
  return createVerificationGraph({
    model: model ?? (await chatModel()).model,
    retriever: policyRetriever({ k: 2 }),
    monitor: createGraphMonitor({ workflow: await loadWorkflow(fileURLToPath(new URL('./verifier.yaml', import.meta.url))) }),
    loops: createLoopDetector({}),
    maxIterations: 8,
    maxTokens: 6000,
    timeoutMs: 60_000,
    retry: { initialIntervalMs: 200 },
    fallback: ruleFallback,
    prices: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } },
    ...(checkpointer ? { checkpointer } : {}),
  });
}
