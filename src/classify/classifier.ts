import { systemTimers, type Timers } from '../clock/index.js';
import { DEFAULT_EMBEDDING_TIMEOUT_MS, withCache, withTimeout, type Embedder } from '../embed/index.js';
import { andThen, TimedOut, within, type MaybePromise } from '../async/index.js';
import { InvalidOptionError } from '../errors/index.js';
import type { AssistantTurn } from '../messages/index.js';
import type { Workflow } from '../workflow/index.js';
import { classifyExemplars, exemplarIndex, type ExemplarIndex } from './exemplars.js';
import { classifyPatterns } from './patterns.js';
import { classifyToolCalls, toolStateMap } from './tool-calls.js';
import { runTiers, type ClassificationTier, type TierFailure } from './tier.js';
import type { ClassificationResult, FallbackReason } from './types.js';

/** Text beyond this many characters is not read, so a huge response costs bounded time. */
export const DEFAULT_MAX_TEXT_LENGTH = 8000;

export interface ClassifierOptions {
  workflow: Workflow;
  /**
   * Embeds response text for the exemplar tier; any LangChain embeddings object works. Without one, states are
   * recognised by tool calls and patterns only.
   */
  embeddings?: Embedder;
  /**
   * Budget of one query embedding, in milliseconds; past it the turn falls back (fail-open).
   * @default 50
   */
  embeddingTimeoutMs?: number;
  /**
   * Characters of response text read by patterns and embeddings.
   * @default 8000
   */
  maxTextLength?: number;
  /**
   * Budget of embedding the exemplars once (loading a local model included), in milliseconds. Past it the warm-up
   * rejects with its timeout, and the next turn that needs the exemplars tries again.
   * @default 30000
   */
  warmUpTimeoutMs?: number;
  /** Timer functions for the budgets, replaceable in tests. @default systemTimers */
  timers?: Timers;
  /**
   * Tiers of your own (`defineClassificationTier`), asked in order after the tool calls and patterns and before the
   * exemplars. @default []
   */
  tiers?: readonly ClassificationTier[];
  /** Told when a tier throws, rejects, runs past its budget or names no state; the turn goes on down the cascade. */
  onTierFailure?: TierFailure;
}

/** Budget of embedding a workflow's exemplars once: a local model may take seconds to load, but not for ever. */
export const DEFAULT_WARM_UP_TIMEOUT_MS = 30_000;

/** Maps model responses to workflow states with the cascade tool calls -> patterns -> your tiers -> embeddings -> fallback. */
export interface Classifier {
  /**
   * Classifies one model response. Returns one result per recognised tool call, in call order, or else exactly one
   * result (a pattern, an exemplar, or the fallback that stays in `currentState`). Never rejects: embedder failures
   * become a fallback whose evidence says why.
   */
  classify(turn: AssistantTurn, currentState: string): Promise<ClassificationResult[]>;
  /** Embeds the workflow's exemplars now, so the first real call does not wait for it. Rejects if the embedder fails. */
  warmUp(): Promise<void>;
}

/**
 * Creates a classifier for one workflow.
 * @throws {InvalidOptionError} when `maxTextLength` or `embeddingTimeoutMs` is not a positive number.
 * @example
 * const classifier = createClassifier({ workflow, embeddings: createLexicalEmbedder() });
 * await classifier.warmUp();
 * const [result] = await classifier.classify({ content: 'Could you tell me more?', toolCalls: [] }, 'greeting');
 */
export function createClassifier(options: ClassifierOptions): Classifier {
  const { classify, warmUp } = createSyncFirstClassifier(options);
  return { warmUp, classify: async (turn, currentState) => classify(turn, currentState) };
}

/**
 * The classifier whose answer is a plain value unless it waits for the embedder: tool calls and patterns decide
 * most turns synchronously, and the monitor, on a model call's path, then pays no promise for them.
 * @internal the monitor's; users call {@link createClassifier}.
 */
export function createSyncFirstClassifier({
  workflow,
  embeddings,
  embeddingTimeoutMs = DEFAULT_EMBEDDING_TIMEOUT_MS,
  maxTextLength = DEFAULT_MAX_TEXT_LENGTH,
  warmUpTimeoutMs = DEFAULT_WARM_UP_TIMEOUT_MS,
  timers = systemTimers,
  tiers = [],
  onTierFailure = () => {},
}: ClassifierOptions): { classify(turn: AssistantTurn, currentState: string): MaybePromise<ClassificationResult[]>; warmUp(): Promise<void> } {
  if (!Number.isInteger(maxTextLength) || maxTextLength <= 0) {
    throw new InvalidOptionError({ parameter: 'maxTextLength', value: maxTextLength, fix: 'Pass a positive whole number of characters; the default is 8000.' });
  }
  const tools = toolStateMap(workflow);
  const hasExemplars = workflow.definition.states.some((state) => state.classification.exemplars.length > 0);
  // Queries run under the budget; the one-off exemplar embedding does not, so a slow model can still finish it.
  const queries = embeddings && hasExemplars ? withTimeout(withCache(embeddings), { timeoutMs: embeddingTimeoutMs, timers }) : undefined;
  let ready: ExemplarIndex | undefined;
  let warming: Promise<void> | undefined;
  const warmUp = (): Promise<void> => {
    if (!embeddings || !hasExemplars || ready) return Promise.resolve();
    warming ??= Promise.resolve(within(exemplarIndex(workflow, embeddings), warmUpTimeoutMs, timers)).then(
      (index) => {
        ready = index;
      },
      (error: unknown) => {
        warming = undefined; // the next call tries again
        throw error instanceof TimedOut ? new Error(`Embedding the workflow's exemplars took longer than ${warmUpTimeoutMs} ms (warmUpTimeoutMs).`) : error;
      },
    );
    return warming;
  };

  const fallback = (currentState: string, reason: FallbackReason, error?: unknown): ClassificationResult[] => [
    { state: currentState, method: 'fallback', confidence: 0, evidence: { kind: 'fallback', reason, ...(error === undefined ? {} : { error }) } },
  ];

  async function byExemplar(index: ExemplarIndex, embedder: Embedder, text: string, currentState: string): Promise<ClassificationResult[]> {
    try {
      const result = classifyExemplars(workflow, index, await embedder.embedQuery(text), currentState);
      return result ? [result] : fallback(currentState, 'no-match');
    } catch (error) {
      return fallback(currentState, 'embedding-failed', error);
    }
  }

  /**
   * A turn that needs the exemplars before they are embedded waits for them up to the embedding budget (the first
   * turns of a process would otherwise all skip the tier), then falls back saying why: still warming up, or failed.
   */
  async function afterWarmUp(text: string, currentState: string): Promise<ClassificationResult[]> {
    try {
      await within(warmUp(), embeddingTimeoutMs, timers);
    } catch (error) {
      return error instanceof TimedOut ? fallback(currentState, 'warming-up') : fallback(currentState, 'embedding-failed', error);
    }
    return byExemplar(ready!, queries!, text, currentState);
  }

  function afterPatterns(text: string, currentState: string): MaybePromise<ClassificationResult[]> {
    if (!queries) return fallback(currentState, 'no-match');
    if (!ready) return afterWarmUp(text, currentState);
    return byExemplar(ready, queries, text, currentState);
  }

  return {
    warmUp,
    classify(turn, currentState) {
      const byTools = classifyToolCalls(workflow, tools, turn.toolCalls, currentState);
      if (byTools.length > 0) return byTools;
      const text = turn.content.length > maxTextLength ? turn.content.slice(0, maxTextLength) : turn.content;
      if (text.trim() === '') return fallback(currentState, 'no-text');
      const byPattern = classifyPatterns(workflow, text, currentState);
      if (byPattern) return [byPattern];
      if (tiers.length === 0) return afterPatterns(text, currentState);
      const byTier = runTiers(tiers, { text, turn, currentState, states: workflow.stateNames }, { timers, onFailure: onTierFailure, hasState: (state) => workflow.hasState(state) });
      return andThen(byTier, (found) => (found ? [found] : afterPatterns(text, currentState)));
    },
  };
}
