import { isPromiseLike, TimedOut, within, type MaybePromise } from '../async/index.js';
import type { Timers } from '../clock/index.js';
import { InvalidOptionError } from '../errors/index.js';
import type { AssistantTurn } from '../messages/index.js';
import type { ClassificationResult } from './types.js';

/** What a classification tier reads: the response's text (bounded), the turn, and where the session is. */
export interface TierInput {
  /** The response text, cut at the classifier's `maxTextLength`. */
  text: string;
  turn: AssistantTurn;
  currentState: string;
  /** Every state of the workflow. */
  states: readonly string[];
}

/** A tier's answer: the state the response is in, and how sure it is, in [0, 1]. */
export interface TierAnswer {
  state: string;
  confidence: number;
}

/** What `defineClassificationTier` takes. */
export interface ClassificationTierDefinition {
  /** Shown in evidence, the debug log and the miss log. */
  name: string;
  /**
   * Classifies a response the tool calls and patterns left undecided. Return a state and a confidence, or nothing to
   * pass the turn on (to the exemplars, then the fallback). May be async. A throw, a rejection, a late answer (past
   * `timeoutMs`) or an answer naming no state of the workflow is a miss: the turn goes on down the cascade, and the
   * monitor counts it and logs it once.
   */
  classify(input: TierInput): MaybePromise<TierAnswer | undefined | null>;
  /** Budget of one call, in milliseconds. @default 200 */
  timeoutMs?: number;
}

/** A classification tier made by `defineClassificationTier`. */
export interface ClassificationTier extends Readonly<ClassificationTierDefinition> {
  readonly kind: 'classification-tier';
  readonly timeoutMs: number;
}

/** Budget of one custom tier call, in milliseconds. */
export const DEFAULT_TIER_TIMEOUT_MS = 200;

/**
 * Defines a classification tier: user code the cascade asks after the tool calls and patterns, before the exemplars.
 * Pass it to `createMonitor({ tiers: [...] })` or register it in the monitor's registry.
 * @throws {InvalidOptionError} when the name, `classify` or `timeoutMs` is malformed.
 * @example
 * const keywords = defineClassificationTier({
 *   name: 'keywords',
 *   classify: ({ text }) => (/\brefund(ed)?\b/i.test(text) ? { state: 'refund', confidence: 0.8 } : undefined),
 * });
 */
export function defineClassificationTier(definition: ClassificationTierDefinition): ClassificationTier {
  if (typeof definition?.name !== 'string' || definition.name.trim() === '') throw new InvalidOptionError({ parameter: 'name', value: definition?.name, fix: 'Give the tier a name.' });
  if (typeof definition.classify !== 'function') throw new InvalidOptionError({ parameter: 'classify', value: definition.classify, fix: 'Pass classify(input) returning { state, confidence } or nothing.' });
  const { timeoutMs = DEFAULT_TIER_TIMEOUT_MS } = definition;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new InvalidOptionError({ parameter: 'timeoutMs', value: timeoutMs, fix: `Pass a positive number of milliseconds; the default is ${DEFAULT_TIER_TIMEOUT_MS}.` });
  return Object.freeze({ ...definition, timeoutMs, kind: 'classification-tier' as const });
}

/** Told when a tier fails; the turn goes on down the cascade. */
export type TierFailure = (tier: string, error: unknown) => void;

/**
 * Asks the tiers in order; the first answer naming a state of the workflow decides. A synchronous tier costs no
 * promise; an async one is raced against its budget.
 */
export function runTiers(
  tiers: readonly ClassificationTier[],
  input: TierInput,
  { timers, onFailure, hasState }: { timers: Timers; onFailure: TierFailure; hasState: (state: string) => boolean },
): MaybePromise<ClassificationResult | undefined> {
  const from = (index: number): MaybePromise<ClassificationResult | undefined> => {
    if (index >= tiers.length) return undefined;
    const tier = tiers[index]!;
    let answer: MaybePromise<TierAnswer | undefined | null>;
    try {
      answer = within(tier.classify(input), tier.timeoutMs, timers);
    } catch (error) {
      onFailure(tier.name, error);
      return from(index + 1);
    }
    const decide = (found: TierAnswer | undefined | null): MaybePromise<ClassificationResult | undefined> => {
      if (found === undefined || found === null) return from(index + 1);
      const problem = answerProblem(found, hasState);
      if (problem) {
        onFailure(tier.name, new Error(problem));
        return from(index + 1);
      }
      return { state: found.state, method: 'tier', confidence: found.confidence, evidence: { kind: 'tier', tier: tier.name } };
    };
    if (!isPromiseLike(answer)) return decide(answer);
    return Promise.resolve(answer).then(decide, (error: unknown) => {
      onFailure(tier.name, error instanceof TimedOut ? new Error(`classification tier '${tier.name}' gave no answer within ${tier.timeoutMs} ms`) : error);
      return from(index + 1);
    });
  };
  return from(0);
}

function answerProblem(found: TierAnswer, hasState: (state: string) => boolean): string | undefined {
  if (typeof found !== 'object' || typeof found.state !== 'string') return 'the answer is not { state, confidence }';
  if (!hasState(found.state)) return `the answer names '${found.state}', which is not a state of the workflow`;
  if (!(typeof found.confidence === 'number' && found.confidence >= 0 && found.confidence <= 1)) return `the confidence ${String(found.confidence)} is not a number in [0, 1]`;
  return undefined;
}
