import { andThen, type MaybePromise } from '../async/index.js';
import { InvalidOptionError } from '../errors/index.js';
import type { AfterModelOptions, AfterModelResult, OnViolatingText, WithheldResponse } from './types.js';

/** What a host gives {@link settleAnswer}: how to classify an answer, ask for another, and replace one. */
export interface ViolatingTextHost<Answer> {
  /**
   * `monitor.afterModel` on the answer with these options (the host's own way: its session, its failures handled,
   * `undefined` when the monitor failed and the answer goes out unchecked).
   */
  classify(answer: Answer, options: Pick<AfterModelOptions, 'withhold' | 'regenerated'>): MaybePromise<AfterModelResult | undefined>;
  /**
   * Calls the model once more for `regenerate`: `monitor.beforeModel` on the request just sent (it applies the
   * guidance the withheld answer scheduled), then the model. `undefined` when there is no second answer (the call is
   * blocked, or the model failed): the first answer is replaced.
   */
  retry(): MaybePromise<Answer | undefined>;
  /** The answer with its content replaced by the user message (its metadata kept). */
  replace(answer: Answer, withheld: WithheldResponse): Answer;
}

/** The answer to deliver, and the monitor's classification of the answer it came from (absent when it failed). */
export interface SettledAnswer<Answer> {
  answer: Answer;
  classified?: AfterModelResult;
  /** The answer was withheld and replaced: its text is the user message. */
  replaced?: WithheldResponse;
}

/**
 * The one semantics of a model answer that must not reach the user, for every host: classified with `withhold`
 * (unless `deliver`), then delivered as it is, or asked for once more with the guidance (`regenerate`; a second answer
 * that must be withheld too is replaced), or replaced by the user message. Bounded: at most one more model call.
 * @example
 * const { answer } = await settleAnswer('replace', response, { classify, retry, replace });
 */
export function settleAnswer<Answer>(policy: OnViolatingText, first: Answer, host: ViolatingTextHost<Answer>): MaybePromise<SettledAnswer<Answer>> {
  const withhold = policy !== 'deliver';
  return andThen(host.classify(first, { withhold }), (classified): MaybePromise<SettledAnswer<Answer>> => {
    const withheld = classified?.withheld;
    if (!withheld) return classified ? { answer: first, classified } : { answer: first };
    const replaced = (answer: Answer, why: WithheldResponse, by: AfterModelResult): SettledAnswer<Answer> => ({ answer: host.replace(answer, why), classified: by, replaced: why });
    if (policy !== 'regenerate') return replaced(first, withheld, classified);
    return andThen(host.retry(), (second) => {
      if (second === undefined) return replaced(first, withheld, classified);
      return andThen(host.classify(second, { withhold, regenerated: true }), (again) => {
        if (again?.withheld) return replaced(second, again.withheld, again);
        return again ? { answer: second, classified: again } : { answer: second };
      });
    });
  });
}

const POLICIES: readonly OnViolatingText[] = ['replace', 'regenerate', 'deliver'];

/**
 * Throws for an `onViolatingText` option that is none of the three, at an adapter's construction.
 * @throws {InvalidOptionError}
 */
export function assertOnViolatingText(value: unknown): asserts value is OnViolatingText {
  if (!POLICIES.includes(value as OnViolatingText)) throw new InvalidOptionError({ parameter: 'onViolatingText', value, fix: "Pass 'replace' (the default), 'regenerate' or 'deliver'." });
}
