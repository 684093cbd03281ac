/** The statuses a verification result can have that the summary gives a column of their own; any other is `other`. */
export const KNOWN_STATUSES = ['met', 'not_met', 'uncertain', 'paused'] as const;

/** What the summary needs of a result: its criterion, status and usage. */
export interface TalliedResult {
  criterionId: string;
  status: string;
  reasonCode?: unknown;
  usage?: { inputTokens?: number; outputTokens?: number; costUsd?: number; wallTimeMs?: number };
}

/** Counts of one criterion (or of all). */
export interface CriterionTally {
  statuses: Record<string, number>;
  /** Results with a status not in {@link KNOWN_STATUSES}. */
  other: number;
  results: number;
  tokens: number;
  costUsd: number;
  /** The runs' own time added up, in milliseconds. */
  runMs: number;
  /** Runs that failed rather than concluded: `llm_error`, `retrieval_error`. */
  failed: number;
}

/** Counts per criterion as results come in: the summary table and the progress line read it. */
export class VerifyTally {
  readonly byCriterion = new Map<string, CriterionTally>();
  readonly total = emptyTally();

  constructor(criterionIds: readonly string[]) {
    for (const id of criterionIds) this.byCriterion.set(id, emptyTally());
  }

  add(result: TalliedResult): void {
    let tally = this.byCriterion.get(result.criterionId);
    if (!tally) this.byCriterion.set(result.criterionId, (tally = emptyTally()));
    for (const target of [tally, this.total]) {
      target.results++;
      if ((KNOWN_STATUSES as readonly string[]).includes(result.status)) target.statuses[result.status] = (target.statuses[result.status] ?? 0) + 1;
      else target.other++;
      target.tokens += (result.usage?.inputTokens ?? 0) + (result.usage?.outputTokens ?? 0);
      target.costUsd += result.usage?.costUsd ?? 0;
      target.runMs += result.usage?.wallTimeMs ?? 0;
      if (result.reasonCode === 'llm_error' || result.reasonCode === 'retrieval_error') target.failed++;
    }
  }
}

function emptyTally(): CriterionTally {
  return { statuses: {}, other: 0, results: 0, tokens: 0, costUsd: 0, runMs: 0, failed: 0 };
}

/**
 * The summary table: a row per criterion and a total, with the count of each status (an `other` column only when
 * some result has a status this version does not know), tokens, cost and the runs' time.
 */
export function summaryTable(tally: VerifyTally): string[] {
  const other = tally.total.other > 0;
  const header = ['criterion', 'met', 'not met', 'uncertain', 'paused', ...(other ? ['other'] : []), 'tokens', 'cost', 'run time'];
  const row = (name: string, counts: CriterionTally) => [
    name,
    ...KNOWN_STATUSES.map((status) => String(counts.statuses[status] ?? 0)),
    ...(other ? [String(counts.other)] : []),
    counts.tokens.toLocaleString('en-US'),
    `$${counts.costUsd.toFixed(4)}`,
    formatDuration(counts.runMs),
  ];
  const rows = [header, ...[...tally.byCriterion].map(([id, counts]) => row(id, counts)), row('total', tally.total)];
  const widths = header.map((_, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  const render = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [render(header), rule, ...rows.slice(1, -1).map(render), rule, render(rows.at(-1)!)];
}

/** `850 ms`, `12.3 s`, `4 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** The counts of a tally in words, for the progress line: `met 12 · not met 3 · uncertain 1`. */
export function statusWords(counts: CriterionTally): string {
  const words = KNOWN_STATUSES.filter((status) => (counts.statuses[status] ?? 0) > 0 || status !== 'paused').map((status) => `${status.replace('_', ' ')} ${counts.statuses[status] ?? 0}`);
  if (counts.other > 0) words.push(`other ${counts.other}`);
  return words.join(' · ');
}
