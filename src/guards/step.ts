import type { MaybePromise } from '../async/index.js';

/**
 * The solver's continuation-passing steps. A step is `true` when the search should stop (enough answers, or a limit),
 * `false` to backtrack, or a promise of either when a data tool had to be called. Staying synchronous while every
 * fact is cached is what makes an all-cached check cheap: no promise is created unless a tool runs.
 */
export type Step = MaybePromise<boolean>;

/** What to do after a condition holds: prove the rest of the clause. */
export type Continuation = () => Step;

/** Runs `cleanup` once `step` settles or fails: undoing bindings and proof nodes on the way back. */
export function finallyDo(step: Step, cleanup: () => void): Step {
  if (typeof step === 'boolean') {
    cleanup();
    return step;
  }
  return step.then(
    (stop) => {
      cleanup();
      return stop;
    },
    (error: unknown) => {
      cleanup();
      throw error;
    },
  );
}

/** Tries `attempt` on each item in order until one says stop; synchronous while every attempt is. */
export function each<T>(items: readonly T[], attempt: (item: T) => Step, from = 0): Step {
  for (let index = from; index < items.length; index++) {
    const step = attempt(items[index]!);
    if (step === true) return true;
    if (step !== false) return step.then((stop) => (stop ? true : each(items, attempt, index + 1)));
  }
  return false;
}
