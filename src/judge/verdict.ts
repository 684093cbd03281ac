import * as z from 'zod';
import { normaliseText } from './input.js';
import { normaliseScore, scaleRange, type Rubric } from './rubric.js';

/** One criterion's score, with the judge's reasoning and the quotes it rests on. */
export interface CriterionVerdict {
  id: string;
  /** On the criterion's own scale (0 or 1 for binary, 1 to n for Likert). */
  score: number;
  reasoning: string;
  /** Quotes from the judged material; each was checked to occur in it. */
  evidence: string[];
}

/** A validated verdict: the weighted score in [0, 1] against the rubric's `pass_at`, and each criterion's score. */
export interface JudgeVerdict {
  verdict: 'pass' | 'fail';
  score: number;
  criteria: CriterionVerdict[];
  /** The judge's confidence, in [0, 1]. */
  confidence: number;
  /** Criteria whose score fell below their `fail_below` (they fail the rubric whatever the score). */
  failedCriteria: string[];
}

/** Why an answer could not be used: not the JSON asked for, or evidence that does not quote the judged material. */
export type VerdictProblem = { kind: 'invalid' | 'ungrounded'; message: string };

const answerSchema = z.object({
  criteria: z.array(
    z.object({
      id: z.string(),
      score: z.number().finite(),
      reasoning: z.string().default(''),
      evidence: z.array(z.string()).default([]),
    }),
  ),
  confidence: z.number().min(0).max(1),
});

/**
 * Checks a model's answer against the rubric and the judged material and scores it. The weighted score is computed
 * here, never taken from the model.
 * @returns the verdict, or why the answer cannot be used (`invalid`, or `ungrounded` when a quote is not in the input).
 */
export function readVerdict(rubric: Rubric, answer: unknown, judged: string): JudgeVerdict | VerdictProblem {
  let value = answer;
  if (typeof answer === 'string') {
    try {
      value = JSON.parse(answer) as unknown;
    } catch {
      return { kind: 'invalid', message: `the answer is not JSON: ${JSON.stringify(answer.slice(0, 80))}` };
    }
  }
  const parsed = answerSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { kind: 'invalid', message: `the answer does not follow the schema: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  const byId = new Map<string, (typeof parsed.data.criteria)[number]>();
  for (const entry of parsed.data.criteria) {
    if (byId.has(entry.id)) return { kind: 'invalid', message: `criterion '${entry.id}' is scored twice` };
    byId.set(entry.id, entry);
  }
  const known = new Set(rubric.criteria.map((criterion) => criterion.id));
  const unknown = [...byId.keys()].find((id) => !known.has(id));
  if (unknown !== undefined) return { kind: 'invalid', message: `criterion '${unknown}' is not in rubric '${rubric.id}'` };
  const haystack = normaliseText(judged);
  const criteria: CriterionVerdict[] = [];
  const failedCriteria: string[] = [];
  let weighted = 0;
  let weights = 0;
  for (const criterion of rubric.criteria) {
    const entry = byId.get(criterion.id);
    if (!entry) return { kind: 'invalid', message: `criterion '${criterion.id}' is not scored` };
    const { min, max } = scaleRange(criterion.scale);
    if (!Number.isInteger(entry.score) || entry.score < min || entry.score > max) {
      return { kind: 'invalid', message: `criterion '${criterion.id}' scored ${entry.score}; its ${criterion.scale} scale takes whole numbers from ${min} to ${max}` };
    }
    const ungrounded = entry.evidence.find((quote) => !grounded(quote, haystack));
    if (ungrounded !== undefined) return { kind: 'ungrounded', message: `criterion '${criterion.id}' quotes ${JSON.stringify(ungrounded.slice(0, 80))}, which is not in the judged input` };
    if (criterion.failBelow !== undefined && entry.score < criterion.failBelow) failedCriteria.push(criterion.id);
    weighted += criterion.weight * normaliseScore(criterion.scale, entry.score);
    weights += criterion.weight;
    criteria.push({ id: criterion.id, score: entry.score, reasoning: entry.reasoning, evidence: entry.evidence });
  }
  const score = weights === 0 ? 0 : weighted / weights;
  const verdict = score >= rubric.passAt && failedCriteria.length === 0 ? 'pass' : 'fail';
  return { verdict, score, criteria, confidence: parsed.data.confidence, failedCriteria };
}

/** Whether a value is a problem rather than a verdict. */
export function isVerdictProblem(value: JudgeVerdict | VerdictProblem): value is VerdictProblem {
  return 'kind' in value;
}

/** A quote occurs in the material once whitespace and case are set aside, and quotation marks around it dropped. */
function grounded(quote: string, haystack: string): boolean {
  const needle = normaliseText(quote).replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/g, '').trim();
  return needle.length === 0 || haystack.includes(needle);
}
