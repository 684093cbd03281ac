import type { TokenUsage } from '../authoring/model.js';
import type { Rubric } from './rubric.js';
import type { CriterionVerdict, JudgeVerdict } from './verdict.js';

/**
 * How an ensemble's verdicts become one: `majority` passes when more than half of the members that answered pass (a
 * tie fails); `all` passes only when every member that answered passes (the strictest); `any` passes when one does
 * (the most lenient); `mean` averages the scores and checks the mean against `pass_at` and each `fail_below`.
 */
export type EnsembleMode = 'majority' | 'all' | 'any' | 'mean';

/** Every ensemble mode, in the order the docs list them. */
export const ENSEMBLE_MODES: readonly EnsembleMode[] = ['majority', 'all', 'any', 'mean'];

/** What one member of an ensemble answered for one judgment. */
export interface MemberJudgment {
  modelId: string;
  /** The member's own key (rubric, the member's model id, input): what its cassette is keyed by. */
  key: string;
  outcome: 'pass' | 'fail' | 'error';
  /** The member's weighted score, when it answered. */
  score?: number;
  confidence?: number;
  error?: { kind: string; message: string };
  usage?: TokenUsage;
  costUsd?: number;
}

/** How an ensemble reached a judgment: its mode, how far the members agreed, and each member's answer. */
export interface EnsembleDetail {
  mode: EnsembleMode;
  /** The share of members that answered whose verdict is the combined one, in [0, 1]. */
  agreement: number;
  members: MemberJudgment[];
}

/**
 * One verdict from the members' verdicts (at least one). Criterion scores and the weighted score are the members'
 * mean (`majority`, `mean`), lowest (`all`) or highest (`any`); the confidence is the agreement times the mean
 * confidence of the members that agree with the result, so a split ensemble is never sure of itself.
 * @example
 * combineVerdicts(rubric, 'majority', [pass, pass, fail]) // { verdict: 'pass', agreement: 2/3, ... }
 */
export function combineVerdicts(rubric: Rubric, mode: EnsembleMode, verdicts: readonly { modelId: string; verdict: JudgeVerdict }[]): JudgeVerdict & { agreement: number } {
  const pick = (values: number[]): number => (mode === 'all' ? Math.min(...values) : mode === 'any' ? Math.max(...values) : values.reduce((sum, value) => sum + value, 0) / values.length);
  const criteria: CriterionVerdict[] = rubric.criteria.map((criterion) => {
    const entries = verdicts.map(({ modelId, verdict }) => ({ modelId, entry: verdict.criteria.find((candidate) => candidate.id === criterion.id)! }));
    return {
      id: criterion.id,
      score: pick(entries.map(({ entry }) => entry.score)),
      reasoning: entries.filter(({ entry }) => entry.reasoning).map(({ modelId, entry }) => `${modelId}: ${entry.reasoning}`).join(' | '),
      evidence: [...new Set(entries.flatMap(({ entry }) => entry.evidence))],
    };
  });
  const score = pick(verdicts.map(({ verdict }) => verdict.score));
  const passes = verdicts.filter(({ verdict }) => verdict.verdict === 'pass').length;
  const belowFloor = rubric.criteria.filter((criterion, index) => criterion.failBelow !== undefined && criteria[index]!.score < criterion.failBelow).map((criterion) => criterion.id);
  const pass =
    mode === 'majority' ? passes * 2 > verdicts.length : mode === 'all' ? passes === verdicts.length : mode === 'any' ? passes > 0 : score >= rubric.passAt && belowFloor.length === 0;
  const verdict = pass ? 'pass' : 'fail';
  const agreeing = verdicts.filter((member) => member.verdict.verdict === verdict);
  const agreement = agreeing.length / verdicts.length;
  const confidence = agreeing.length === 0 ? 0 : agreement * (agreeing.reduce((sum, member) => sum + member.verdict.confidence, 0) / agreeing.length);
  return { verdict, score, criteria, confidence, failedCriteria: pass ? [] : belowFloor, agreement };
}
