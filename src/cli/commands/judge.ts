import { readFile } from 'node:fs/promises';
import { readFailureDiagnostic, readFailureLine } from '../../diagnostics/read-failure.js';
import { calibrateJudge, createJudge, emptyCassette, loadRubrics, recordedJudge, type Cassette, type JudgeModel, type LabelledCase, type Rubric } from '../../judge/index.js';
import { PanoptesError } from '../../errors/index.js';
import type { PriceTable } from '../../react/index.js';
import { parsePrices } from '../verify/inputs.js';
import { initLangChainChatModel } from '../langchain-model.js';
import type { Output } from '../output.js';
import { writeErrorReason, writeFileAtomic } from '../write-file-atomic.js';

/** Options of `panoptes judge record`. */
export interface JudgeRecordOptions {
  rubrics: string;
  /** JSONL: one `{ "input": {...}, "rubric"?: id }` per line (a labels file works). */
  inputs: string;
  out: string;
  /** `provider:name` for LangChain's `initChatModel`. @default 'openai:gpt-4o-mini' */
  model?: string;
  rubric?: string;
  concurrency?: number;
  /** JSON prices in USD per million tokens by model, for the cost of what was recorded. */
  prices?: string;
}

/** Options of `panoptes judge calibrate`. */
export interface JudgeCalibrateOptions {
  rubrics: string;
  /** JSONL: one `{ "input": {...}, "label": true|false, "rubric"?: id, "run"?: id }` per line. */
  labels: string;
  /** Replay verdicts from this cassette (strict); without it, ask `--model`. */
  cassette?: string;
  model?: string;
  rubric?: string;
  targetFpr?: number;
  concurrency?: number;
  /** JSON prices in USD per million tokens by model (`openai:gpt-4o-mini` or `gpt-4o-mini`): the report adds the cost. */
  prices?: string;
  json?: boolean;
}

/**
 * `panoptes judge record`: judges every input with a live model and writes the answers as a cassette keyed by the
 * cache key, which `recordedJudge` replays offline. Answers already in `--out` are kept and not asked again.
 * @returns 0 when every input was judged, 1 when some judgments failed (they are not recorded), 2 for bad input.
 */
export async function judgeRecordCommand(options: JudgeRecordOptions, output: Output): Promise<number> {
  let rubrics: Rubric[];
  let cases: LabelledCase[];
  let live: JudgeModel;
  let cassette: Cassette;
  let prices: PriceTable | undefined;
  try {
    rubrics = await loadRubrics(options.rubrics);
    cases = await readCases(options.inputs, false);
    prices = await readPrices(options.prices);
    const spec = options.model ?? 'openai:gpt-4o-mini';
    live = await langChainJudgeModel(spec);
    cassette = (await readCassette(options.out, true)) ?? emptyCassette(live.modelId ?? spec);
  } catch (error) {
    output.err(message(error));
    return 2;
  }
  const judge = createJudge({ model: recordedJudge(cassette, { strict: false, fallback: live }), rubrics, cache: false, ...(prices ? { prices } : {}) });
  const before = Object.keys(cassette.entries).length;
  const report = await calibrateJudge(judge, cases, { ...(options.rubric ? { rubric: options.rubric } : {}), concurrency: options.concurrency ?? 4 });
  try {
    await writeFileAtomic(options.out, `${JSON.stringify(cassette, null, 2)}\n`);
  } catch (error) {
    output.err(`cannot write ${options.out}: ${writeErrorReason(error)}`);
    return 2;
  }
  const added = Object.keys(cassette.entries).length - before;
  output.err(`recorded ${added} new answer${added === 1 ? '' : 's'} into ${options.out} (${Object.keys(cassette.entries).length} in all); ${report.errors} judgment${report.errors === 1 ? '' : 's'} failed; ${report.tokens} tokens${report.costUsd === undefined ? '' : `, ${usd(report.costUsd)}`}`);
  return report.errors === 0 ? 0 : 1;
}

/**
 * `panoptes judge calibrate`: judges labelled inputs (from a cassette, or a live model) and reports AUROC, the
 * true-positive rate at 1% and 5% false positives, expected calibration error, calls and tokens per run, and the
 * `pass_at` that keeps to `--target-fpr`.
 * @returns 0 when the report was made, 2 for bad input.
 */
export async function judgeCalibrateCommand(options: JudgeCalibrateOptions, output: Output): Promise<number> {
  let rubrics: Rubric[];
  let cases: LabelledCase[];
  let model: JudgeModel;
  let prices: PriceTable | undefined;
  try {
    rubrics = await loadRubrics(options.rubrics);
    cases = await readCases(options.labels, true);
    prices = await readPrices(options.prices);
    if (options.rubric !== undefined && !rubrics.some((rubric) => rubric.id === options.rubric)) throw new Error(`--rubric ${options.rubric}: ${options.rubrics} has ${rubrics.map((rubric) => rubric.id).join(', ')}`);
    model = options.cassette === undefined ? await langChainJudgeModel(options.model ?? 'openai:gpt-4o-mini') : recordedJudge((await readCassette(options.cassette, false))!);
  } catch (error) {
    output.err(message(error));
    return 2;
  }
  const judge = createJudge({ model, rubrics, logger: { warn: (line: string) => output.err(line) }, ...(prices ? { prices } : {}) });
  const targetFpr = options.targetFpr ?? 0.01;
  const report = await calibrateJudge(judge, cases, { ...(options.rubric ? { rubric: options.rubric } : {}), targetFpr, concurrency: options.concurrency ?? 4 });
  if (options.json) {
    output.out(JSON.stringify(report, null, 2));
    return 0;
  }
  const percent = (value: number) => (Number.isNaN(value) ? 'n/a' : `${(value * 100).toFixed(1)}%`);
  const fixed = (value: number) => (Number.isNaN(value) ? 'n/a' : value.toFixed(3));
  output.out(`${report.cases} cases: ${report.violations} violations, ${report.nonViolations} not; ${report.errors} without a verdict (left out)`);
  output.out(`AUROC ${fixed(report.auroc)}`);
  output.out(`true-positive rate at 1% false positives ${percent(report.tprAt1PercentFpr)}, at 5% ${percent(report.tprAt5PercentFpr)}`);
  output.out(`expected calibration error ${fixed(report.expectedCalibrationError)}`);
  output.out(`model calls ${report.modelCalls} (${report.callsPerRun.toFixed(2)} per run over ${report.runs} runs), tokens ${report.tokens} (${report.tokensPerRun.toFixed(0)} per run)`);
  if (report.costUsd !== undefined) output.out(`cost ${usd(report.costUsd)} (${usd(report.costPerRun ?? 0)} per run)`);
  else if (options.prices !== undefined) output.out(`cost unknown: ${report.tokens === 0 ? 'no call reported its usage' : `${options.prices} has no price for ${judge.modelId}`}`);
  output.out(
    report.suggested
      ? `suggested pass_at ${report.suggested.passAt} for false positives <= ${percent(targetFpr)}: fails ${percent(report.suggested.tpr)} of violations and ${percent(report.suggested.fpr)} of the rest`
      : 'no pass_at suggested: no non-violation has a verdict',
  );
  return 0;
}

/** US dollars, with the digits a cost per call needs. */
function usd(value: number): string {
  return `US$${value.toFixed(value < 1 ? 6 : 2)}`;
}

async function readPrices(file: string | undefined): Promise<PriceTable | undefined> {
  if (file === undefined) return undefined;
  return parsePrices(await readText(file, 'check the path of the --prices file'), file);
}

/** The judge's model through LangChain's `initChatModel` and the LangChain adapter, both loaded only now. */
async function langChainJudgeModel(spec: string): Promise<JudgeModel> {
  const chatModel = await initLangChainChatModel(spec);
  // The adapter is typed here by hand: the core's files never name an adapter's module, even as a type.
  const adapter = '../../../adapters/langchain/judge-model.js';
  const { judgeModel } = (await import(adapter)) as { judgeModel: (chatModel: unknown, options: { modelId: string }) => JudgeModel };
  return judgeModel(chatModel, { modelId: spec });
}

async function readText(file: string, missingHint: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(readFailureLine(readFailureDiagnostic(file, error, missingHint)));
  }
}

/** The cases of a JSONL file; a bad line throws `file:line: ...`. */
async function readCases(file: string, labelled: boolean): Promise<LabelledCase[]> {
  const text = await readText(file, 'check the path of the JSONL file');
  const cases: LabelledCase[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch (error) {
      throw new Error(`${file}:${index + 1}: not JSON: ${(error as Error).message}`);
    }
    const item = value as Partial<LabelledCase> | null;
    if (typeof item !== 'object' || item === null || typeof item.input !== 'object' || item.input === null) throw new Error(`${file}:${index + 1}: expected { "input": { "messages", "call" | "response" }${labelled ? ', "label": true | false' : ''} }`);
    if (labelled && ![true, false, 0, 1].includes(item.label as never)) throw new Error(`${file}:${index + 1}: "label" must be true or false (true: the judge should fail it), got ${JSON.stringify(item.label)}`);
    cases.push({ input: item.input, label: item.label ?? false, ...(item.rubric ? { rubric: item.rubric } : {}), ...(item.run ? { run: item.run } : {}) });
  });
  if (cases.length === 0) throw new Error(`${file}: no cases`);
  return cases;
}

async function readCassette(file: string, optional: boolean): Promise<Cassette | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (optional && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(readFailureLine(readFailureDiagnostic(file, error, 'check the path of the cassette (written by `panoptes judge record`)')));
  }
  const value = JSON.parse(text) as Partial<Cassette>;
  if (typeof value.modelId !== 'string' || typeof value.entries !== 'object' || value.entries === null) throw new Error(`${file}: not a cassette: expected { "modelId", "entries" }`);
  return value as Cassette;
}

function message(error: unknown): string {
  return PanoptesError.isInstance(error) || error instanceof Error ? error.message : String(error);
}
