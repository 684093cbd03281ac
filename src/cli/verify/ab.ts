import { basename } from 'node:path';
import type { VerifyCommandOptions } from '../commands/verify.js';
import { parseAnswers, readInput, VerifyInputError, type AnswerInput, type CaseInput, type CriterionInput } from './inputs.js';
import { parseLabels, parseShare, type LabelInput } from './labels.js';

/** The A/B part of a verify job, as the adapter module takes it. */
export interface AbJob {
  candidate: { model?: string; scripted?: { answers: AnswerInput[]; file: string; delayMs?: number } };
  share: number;
  labels?: LabelInput[];
  rollbackWhen?: string;
}

/** One arm's quality, as the adapter module reports it (`AbArmMetrics`). */
interface ArmMetricsOutput {
  runs: number;
  uncertainRate: number;
  failures: number;
  labelled: number;
  agreement: number | null;
  costUsd: number;
  meanCostUsd: number;
  latencyMs: { mean: number; p50: number; p95: number };
}

/** Both arms' quality at the end of a job (`AbMetrics`). */
export interface AbMetricsOutput {
  share: number;
  rolledBack: boolean;
  primary: ArmMetricsOutput;
  candidate: ArmMetricsOutput;
}

/**
 * The A/B split the flags ask for, checked: `undefined` without a candidate. A/B flags without a candidate, a
 * candidate without `--ab-share`, or two candidates are input errors.
 * @throws {VerifyInputError} naming the flag and what to pass.
 */
export async function abJob(options: VerifyCommandOptions, cases: readonly CaseInput[], criteria: readonly CriterionInput[]): Promise<AbJob | undefined> {
  const { candidateModel, candidateScripted, abShare, labels, abRollbackWhen } = options;
  if (candidateModel !== undefined && candidateScripted !== undefined) throw new VerifyInputError('--candidate-model and --candidate-scripted: pass one candidate, not both');
  if (candidateModel === undefined && candidateScripted === undefined) {
    const orphan = [abShare !== undefined && '--ab-share', labels !== undefined && '--labels', abRollbackWhen !== undefined && '--ab-rollback-when'].filter(Boolean);
    if (orphan.length > 0) throw new VerifyInputError(`${orphan.join(', ')} ${orphan.length === 1 ? 'needs' : 'need'} a candidate to compare with the verifier: add --candidate-model <provider:name> or --candidate-scripted <answers.json>`);
    return undefined;
  }
  if (abShare === undefined) throw new VerifyInputError(`${candidateModel !== undefined ? '--candidate-model' : '--candidate-scripted'} needs --ab-share: the share of cases the candidate judges, 0.1 or 10% to start`);
  const caseIds = new Set(cases.map((item) => item.id));
  const criterionIds = new Set(criteria.map((criterion) => criterion.id));
  const candidate: AbJob['candidate'] =
    candidateScripted !== undefined
      ? { scripted: { answers: parseAnswers(await readInput(candidateScripted, 'candidate scripted answers'), candidateScripted, caseIds, criterionIds), file: basename(candidateScripted), delayMs: options.scriptedDelay ?? 0 } }
      : { model: candidateModel! };
  return {
    candidate,
    share: parseShare(abShare),
    ...(labels !== undefined ? { labels: parseLabels(await readInput(labels, 'labels file'), labels, caseIds, criterionIds) } : {}),
    ...(abRollbackWhen !== undefined ? { rollbackWhen: abRollbackWhen } : {}),
  };
}

/** The summary's A/B table: each arm's runs, agreement with the labels, uncertain rate, failures, cost and latency. */
export function abTable(metrics: AbMetricsOutput): string[] {
  const percent = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);
  const rows = (['primary', 'candidate'] as const).map((arm) => {
    const m = metrics[arm];
    return [arm, String(m.runs), m.labelled === 0 ? '-' : `${percent(m.agreement)} of ${m.labelled}`, percent(m.runs === 0 ? null : m.uncertainRate), String(m.failures), `$${m.costUsd.toFixed(4)}`, `${Math.round(m.latencyMs.p50)} ms`, `${Math.round(m.latencyMs.p95)} ms`];
  });
  const header = ['arm', 'runs', 'agreement', 'uncertain', 'failed', 'cost', 'p50', 'p95'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  const state = metrics.rolledBack ? 'rolled back: new cases went to the primary' : `${(metrics.share * 100).toFixed(1).replace(/\.0$/, '')}% of cases to the candidate`;
  return ['', `A/B (${state})`, line(header), ...rows.map(line)];
}
