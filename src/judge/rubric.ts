/** Where a rubric looks: one tool call before it runs, one response, or the conversation so far. */
export type RubricScope = 'tool_call' | 'turn' | 'conversation';

/** The scales a criterion is scored on: pass or fail, or a Likert scale from 1 to 3, 5 or 7. */
export type CriterionScale = 'binary' | 'likert_3' | 'likert_5' | 'likert_7';

/** What a failed rubric does: let it through with a warning, tell the model, stop the action, or ask the user. */
export type RubricOnFail = 'warn' | 'intervene' | 'block' | 'ask';

/** What a rubric that could not be judged (timeout, budget, a bad or ungrounded answer) does. */
export type RubricOnError = 'allow' | 'deny' | 'ask';

/** Every scale, in the order the docs list them. */
export const CRITERION_SCALES: readonly CriterionScale[] = ['binary', 'likert_3', 'likert_5', 'likert_7'];

/** The lowest and highest score of a scale: binary is 0 or 1, a Likert scale 1 to its size. */
export function scaleRange(scale: CriterionScale): { min: number; max: number } {
  if (scale === 'binary') return { min: 0, max: 1 };
  return { min: 1, max: Number(scale.slice('likert_'.length)) };
}

/** A score on a scale as a fraction in [0, 1]: the lowest score is 0, the highest 1. */
export function normaliseScore(scale: CriterionScale, score: number): number {
  const { min, max } = scaleRange(scale);
  return (Math.min(max, Math.max(min, score)) - min) / (max - min);
}

/** One criterion of a rubric, as loaded. */
export interface Criterion {
  id: string;
  /** What the judge checks, in plain words. */
  description: string;
  scale: CriterionScale;
  /** Its share of the rubric's score, relative to the other criteria's weights. @default 1 */
  weight: number;
  /** A score below this (on the criterion's own scale) fails the rubric whatever the weighted score. */
  failBelow?: number;
  /** What each score means, by score: shown to the judge. */
  anchors?: Readonly<Record<number, string>>;
}

/** Which calls, states and rules a rubric applies to; an empty list or a missing key means any. */
export interface RubricAppliesTo {
  tools?: readonly string[];
  states?: readonly string[];
  rules?: readonly string[];
}

/** One rubric, as loaded from a rubric file. */
export interface Rubric {
  id: string;
  /**
   * Names this rubric's wording in cache keys and cassettes: the file's `version`, or a hash of the rubric's content,
   * so editing a rubric never replays verdicts given to its old text.
   */
  version: string;
  description: string;
  scope: RubricScope;
  appliesTo: RubricAppliesTo;
  criteria: readonly Criterion[];
  /** The weighted score, in [0, 1], at or above which the rubric passes. */
  passAt: number;
  onFail: RubricOnFail;
  onError: RubricOnError;
  /** The share of eligible judgments that are run, in [0, 1]; the rest are skipped (allowed). @default 1 */
  sample: number;
  /** Conversation scope: judge on every n-th turn only. @default 1 */
  everyTurns: number;
  /**
   * tool_call scope: the recent tool results the judge sees; 0 judges the call on the user's requests alone (whether
   * the user asked for this action, where a tool's output could argue for it). @default the judge's limit, 3
   */
  toolResults?: number;
  /** Where the rubric was written, for messages: `file:line`. */
  source?: string;
}
