import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { policySourceNames, splitPolicy, type PolicyChunk, type PriceTable } from '../../react/index.js';
import type { Output } from '../output.js';
import { parseAnswers, parseCases, parseCriteria, parsePrices, parseResults, readInput, VerifyInputError, type AnswerInput, type CaseInput, type CriterionInput, type ResultLine } from '../verify/inputs.js';
import { verifyProgress, type ProgressStream } from '../verify/progress.js';
import { renderVerifyHtml, type ReportResult } from '../verify/report-html.js';
import { formatDuration, summaryTable, VerifyTally } from '../verify/summary.js';
import { writeErrorReason, writeFileAtomic } from '../write-file-atomic.js';
import { abJob, abTable, type AbJob, type AbMetricsOutput } from '../verify/ab.js';

export interface VerifyCommandOptions {
  /** Policy files, Markdown or text. */
  policy: string[];
  /** YAML file of criteria: `- { id, text }`. */
  criteria: string;
  /** JSONL file of cases: one object with an `id` per line. */
  cases: string;
  /** `provider:name` for LangChain's `initChatModel`. @default 'openai:gpt-4o-mini' */
  model?: string;
  /** A JSON file of scripted verdicts, instead of a model: an offline run. */
  scripted?: string;
  /** With `scripted`: how long each scripted answer takes, in milliseconds. @default 0 */
  scriptedDelay?: number;
  /** Runs (a case and a criterion) at once. @default 4 */
  concurrency?: number;
  /** The results file (JSONL, one line per case and criterion); stdout without it. */
  out?: string;
  /** Also write an HTML report here. */
  html?: string;
  /** Go on with the results already in `out`: pairs with a line there are not run again. */
  resume?: boolean;
  /** JSON prices per million tokens by model name, for the cost column. */
  prices?: string;
  /** Model calls a run may make. @default 10 */
  maxIterations?: number;
  /** A/B: the candidate's `provider:name`; a share of the cases (`abShare`) goes to it. */
  candidateModel?: string;
  /** A/B: the candidate answers from these scripted verdicts (offline runs, tests). */
  candidateScripted?: string;
  /** A/B: the share of cases for the candidate, `0.1` or `10%`. */
  abShare?: string;
  /** A/B: JSONL of labelled verdicts, `{ caseId, criterionId, status }` a line, for each arm's agreement. */
  labels?: string;
  /** A/B: while this file exists, every new case goes to the primary (the rollback switch). */
  abRollbackWhen?: string;
}

/** The adapter module the command loads when it runs (typed here by hand: the core never names an adapter's module). */
interface CliVerifierModule {
  runCliJob(
    job: {
      verifier: { policy: string[]; criteria: CriterionInput[]; model?: string; scripted?: { answers: AnswerInput[]; file: string; delayMs?: number }; prices?: PriceTable; maxIterations?: number };
      ab?: AbJob;
      cases: Array<{ id: string; caseBundle: Record<string, unknown> }>;
      done: string[];
      concurrency: number;
    },
    onResult: (result: ResultLine) => void,
    signal: AbortSignal,
  ): Promise<{ label: string; summary: { verified: number; skipped: number; stopped: boolean }; ab?: AbMetricsOutput }>;
}

/**
 * `panoptes verify`: every case against every criterion of a written policy, with the ReAct verification graph.
 * One JSON line per case and criterion is written as each run ends, so a run killed midway goes on with `--resume`
 * and verifies no pair twice. Progress on stderr (a bar on a terminal), then a summary table per criterion, and with
 * `--html` a report for a reviewer.
 * @returns 0 when every pair has a result, 1 when some runs failed (the model or the retriever; `--resume` runs them
 * again, and a job whose first 10 runs all fail stops there), 2 when an input is
 * bad or the model cannot be loaded, 130 when stopped by Ctrl-C (resume with `--resume`).
 */
export async function verifyCommand(options: VerifyCommandOptions, output: Output, progressStream: ProgressStream = process.stderr): Promise<number> {
  const started = performance.now();
  let criteria: CriterionInput[];
  let cases: CaseInput[];
  let chunks: PolicyChunk[];
  let answers: AnswerInput[] | undefined;
  let prices: PriceTable | undefined;
  let resumed: ResultLine[] = [];
  let ab: AbJob | undefined;
  try {
    chunks = await readPolicies(options.policy);
    criteria = parseCriteria(await readInput(options.criteria, 'criteria file'), options.criteria);
    cases = parseCases(await readInput(options.cases, 'cases file'), options.cases);
    if (options.scripted !== undefined) answers = parseAnswers(await readInput(options.scripted, 'scripted answers'), options.scripted, new Set(cases.map((item) => item.id)), new Set(criteria.map((criterion) => criterion.id)));
    if (options.prices !== undefined) prices = parsePrices(await readInput(options.prices, 'prices file'), options.prices);
    ab = await abJob(options, cases, criteria);
    resumed = await previousResults(options, output);
  } catch (error) {
    if (!(error instanceof VerifyInputError)) throw error;
    output.err(error.message);
    return 2;
  }

  const inJob = new Set(cases.flatMap((item) => criteria.map((criterion) => pairKey(item.id, criterion.id))));
  const done = new Set<string>();
  const tally = new VerifyTally(criteria.map((criterion) => criterion.id));
  // A pair's last line is its result. A run that failed (the model or the retriever, not the verdict) is not done:
  // --resume runs it again, and its new line follows the old one.
  const latest = new Map<string, ResultLine>();
  for (const result of resumed) latest.set(pairKey(result.caseId, result.criterionId), result);
  for (const [key, result] of latest) {
    if (!inJob.has(key) || failedRun(result)) continue;
    done.add(key);
    tally.add(result);
  }

  let module: CliVerifierModule;
  try {
    module = (await import(ADAPTER)) as CliVerifierModule;
  } catch (error) {
    output.err(`panoptes verify needs @langchain/core and @langchain/langgraph: npm install @langchain/core @langchain/langgraph (${(error as Error).message})`);
    return 2;
  }
  const verifierOptions = {
    policy: options.policy,
    criteria,
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(answers ? { scripted: { answers, file: basename(options.scripted!), delayMs: options.scriptedDelay ?? 0 } } : {}),
    ...(prices ? { prices } : {}),
    ...(options.maxIterations ? { maxIterations: options.maxIterations } : {}),
  };

  const total = inJob.size;
  const keep: ReportResult[] | undefined = options.html !== undefined && options.out === undefined ? [] : undefined;
  let fd: number | undefined;
  try {
    if (options.out !== undefined) fd = openSync(options.out, 'a');
  } catch (error) {
    output.err(`${options.out}: cannot write the results: ${writeErrorReason(error)}`);
    return 2;
  }
  const progress = verifyProgress(progressStream, total, tally, { resumed: done.size });
  const stop = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    if (++interrupts > 1) process.exit(130);
    stop.abort();
  };
  process.on('SIGINT', onInterrupt);
  progress.start();
  let summary: { verified: number; skipped: number; stopped: boolean };
  let label: string;
  let abMetrics: AbMetricsOutput | undefined;
  let anyResult = false;
  // Runs that all fail from the start (a wrong key, no network) would fill the file with failures: stop early.
  let failuresBeforeAVerdict = 0;
  let firstFailure: string | undefined;
  let gaveUp = false;
  try {
    ({ summary, label, ab: abMetrics } = await module.runCliJob(
      { verifier: verifierOptions, ...(ab ? { ab } : {}), cases, done: [...done], concurrency: options.concurrency ?? 4 },
      (result) => {
        anyResult = true;
        // the pair and the verdict first, so a line reads as what it is about; the trace and usage after
        const { caseId, criterionId, status, confidence, reasonCode, detail, rationale, citations, rejectedCitations, ...rest } = result;
        const line = `${JSON.stringify({ caseId, criterionId, status, confidence, reasonCode, detail, rationale, citations, rejectedCitations, ...rest })}\n`;
        // written at once and in one call: a kill loses at most the runs in flight, never a line already reported
        if (fd !== undefined) writeSync(fd, line);
        else output.out(line.slice(0, -1));
        tally.add(result);
        keep?.push(result as unknown as ReportResult);
        progress.tick();
        if (!failedRun(result)) failuresBeforeAVerdict = -Infinity;
        else {
          firstFailure ??= String(result.detail ?? '');
          if (++failuresBeforeAVerdict === GIVE_UP_AFTER) {
            gaveUp = true;
            stop.abort();
          }
        }
      },
      stop.signal,
    ));
  } catch (error) {
    progress.finish();
    // before any result, a model that cannot be loaded (or a bad option): an input problem
    output.err(anyResult ? `the job failed: ${(error as Error).message}` : (error as Error).message);
    return anyResult ? 1 : 2;
  } finally {
    process.off('SIGINT', onInterrupt);
    if (fd !== undefined) closeSync(fd);
  }
  progress.finish();

  const print = options.out === undefined ? output.err : output.out;
  for (const line of summaryTable(tally)) print(line);
  if (abMetrics) for (const line of abTable(abMetrics)) print(line);
  const elapsed = performance.now() - started;
  const previously = done.size > 0 ? ` (${done.size} from an earlier run)` : '';
  print(`\n${tally.total.results} of ${total} verdicts${previously} in ${formatDuration(elapsed)}, ${summary.verified} run now with ${label}, concurrency ${options.concurrency ?? 4}`);

  if (options.html !== undefined) {
    try {
      const results = keep ?? (await jobResults(options.out!, inJob));
      const subtitle = `${cases.length} case${cases.length === 1 ? '' : 's'} from ${basename(options.cases)} · ${criteria.length} criteri${criteria.length === 1 ? 'on' : 'a'} from ${basename(options.criteria)} · policy: ${policySourceNames(options.policy).join(', ')} · ${label}`;
      const html = renderVerifyHtml({ title: `Verification: ${basename(options.cases)} against ${basename(options.criteria)}`, subtitle, cases, criteria, chunks, results, tally });
      await writeFileAtomic(options.html, html);
    } catch (error) {
      output.err(`${options.html}: cannot write the report: ${writeErrorReason(error)}`);
      return 2;
    }
  }
  const written = [options.out, options.html].filter((file) => file !== undefined);
  if (written.length > 0) print(`wrote ${written.join(', ')}`);
  if (gaveUp) {
    output.err(`stopped: the first ${GIVE_UP_AFTER} runs all failed, the first with: ${firstFailure}`);
    output.err('fix the cause and run the same command with --resume: failed runs run again');
    return 1;
  }
  if (summary.stopped) {
    output.err(`stopped after ${tally.total.results} of ${total}: run the same command with --resume to go on`);
    return 130;
  }
  if (tally.total.failed > 0) {
    output.err(`${tally.total.failed} run${tally.total.failed === 1 ? '' : 's'} failed (llm_error or retrieval_error), the first with: ${firstFailure}`);
    output.err('run the same command with --resume to try them again');
    return 1;
  }
  return 0;
}

/** Runs that fail one after the other from the start of a job before it stops. */
const GIVE_UP_AFTER = 10;

/** A run that ended without a verdict because the model or the retriever failed: --resume runs it again. */
function failedRun(result: { [field: string]: unknown }): boolean {
  return result.reasonCode === 'llm_error' || result.reasonCode === 'retrieval_error';
}

/** The adapter module, as the built CLI finds it. */
const ADAPTER = '../../../adapters/langgraph/react/verify-cli.js';

function pairKey(caseId: string, criterionId: string): string {
  return `${caseId}\u0000${criterionId}`;
}

/** The policy files' chunks, as the retriever cuts them (the report shows citations in them). */
async function readPolicies(files: string[]): Promise<PolicyChunk[]> {
  if (files.length === 0) throw new VerifyInputError('--policy needs at least one file');
  const names = policySourceNames(files);
  const chunks: PolicyChunk[] = [];
  for (const [index, file] of files.entries()) {
    const text = await readInput(file, 'policy file');
    const found = splitPolicy(text, { source: names[index]!, format: ['.txt', '.text'].includes(extname(file).toLowerCase()) ? 'text' : 'markdown' });
    if (found.length === 0) throw new VerifyInputError(`${file}:1:1: the policy file has no text`);
    chunks.push(...found);
  }
  return chunks;
}

/**
 * The results an earlier run left in `--out`, for `--resume` (an unfinished last line is cut off); without
 * `--resume`, an error when that file already has results, so a finished job is never overwritten by mistake.
 */
async function previousResults(options: VerifyCommandOptions, output: Output): Promise<ResultLine[]> {
  if (options.out === undefined) {
    if (options.resume) throw new VerifyInputError('--resume needs --out: the results file to go on with');
    return [];
  }
  const size = await stat(options.out).then(
    (found) => (found.isDirectory() ? -1 : found.size),
    () => 0,
  );
  if (size < 0) throw new VerifyInputError(`${options.out}: --out is a folder, not a file`);
  if (size === 0) return [];
  if (!options.resume) throw new VerifyInputError(`${options.out} already has results: pass --resume to go on with them, or choose another --out`);
  const { results, validBytes, droppedPartialLine } = parseResults(await readFile(options.out, 'utf8'), options.out);
  if (droppedPartialLine || validBytes < size) {
    const fd = openSync(options.out, 'r+');
    try {
      ftruncateSync(fd, validBytes);
    } finally {
      closeSync(fd);
    }
    if (droppedPartialLine) output.err(`${options.out}: dropped an unfinished last line (the earlier run was stopped while writing it); that pair runs again`);
  }
  return results;
}

/** Every result of the job in the results file, for the report: a pair's last line. */
async function jobResults(file: string, inJob: ReadonlySet<string>): Promise<ReportResult[]> {
  const latest = new Map<string, ResultLine>();
  for (const result of parseResults(await readFile(file, 'utf8'), file).results) latest.set(pairKey(result.caseId, result.criterionId), result);
  return [...latest].filter(([key]) => inJob.has(key)).map(([, result]) => result) as unknown as ReportResult[];
}
