import type { FactStore } from '../facts/index.js';

/** A judge's answer to an open question about one call: `unknown` hands it to the user. */
export type ConditionVerdict = 'yes' | 'no' | 'unknown';

/** What a judge is asked: the question's name (`judged(request_covers_payee)`), the call, and the session. */
export interface ConditionRequest {
  name: string;
  tool: string;
  args: Readonly<Record<string, unknown>>;
  /** The session's facts, with `facts.provenance`: where each value came from. */
  facts: FactStore;
}

/**
 * Answers `judged(Name)` conditions: whether, say, the user's request covers a payment to an account only a document
 * named. Plugged in by the application (a model, a rubric, a human queue); a judge that throws or takes longer than
 * `judgeTimeoutMs` answers `unknown`, and the call is held for the user.
 */
export type ConditionJudge = (request: ConditionRequest) => ConditionVerdict | Promise<ConditionVerdict>;

/** Default of `SentinelOptions.judgeTimeoutMs`. */
export const DEFAULT_CONDITION_JUDGE_TIMEOUT_MS = 10_000;

/** Runs a judge, bounded in time; any failure or odd answer is `unknown`. */
export function runJudge(judge: ConditionJudge | undefined, request: ConditionRequest, timeoutMs: number): ConditionVerdict | Promise<ConditionVerdict> {
  if (!judge) return 'unknown';
  let answer: ConditionVerdict | Promise<ConditionVerdict>;
  try {
    answer = judge(request);
  } catch {
    return 'unknown';
  }
  if (!(answer instanceof Promise)) return clean(answer);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ConditionVerdict>((resolve) => {
    timer = setTimeout(() => resolve('unknown'), timeoutMs);
  });
  return Promise.race([answer.then(clean, () => 'unknown' as const), timeout]).finally(() => clearTimeout(timer));
}

function clean(answer: unknown): ConditionVerdict {
  return answer === 'yes' || answer === 'no' ? answer : 'unknown';
}
