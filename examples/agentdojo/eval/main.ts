/**
 * `npm run eval:agentdojo -- --runs <file.jsonl.gz> [--out decisions.jsonl [--out-trust strict]]
 * [--judge <provider:model | cassette.json>] [--record <cassette.json>] [--limit <n>]`: replays every usable AgentDojo
 * run through the sentinel with its suite's rulebase (examples/agentdojo/<suite>.rules) and prints what it stopped and
 * what it cost. Any file in the same format works; the default is the dev file next to the repository. `--judge` also
 * answers the rules' open `judged(...)` questions with the rubric in request-covers-action.rubrics.yaml; only a live
 * model's figures are reported.
 */
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRulebase, type Judge, type Rulebase } from 'panoptes';
import { locateGoalCall, type Suite } from './goal-call.js';
import { evalJudge, judgeSource, recording, ruleJudge, type EvalJudgeSource } from './judge.js';
import { emptyTally, printReport, tallyModelRun, tallyRun, type JudgeInfo, type Tally } from './report.js';
import { oracleJudge, replayRun } from './replay.js';
import { isUsable, kindOf, readRuns } from './runs.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../../..');

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

/**
 * The trust policies measured: every suite's rulebase as written (`as written`), and each with the declarations of
 * another policy added where a suite has them: `<suite>.strict.rules` (`strict`: less trusted) and
 * `<suite>.trusting.rules` (`trusting`: more trusted).
 */
export const VARIANTS = ['as written', 'strict', 'trusting'] as const;
export type Variant = (typeof VARIANTS)[number];
const POLICY_FILE: Record<Variant, string | undefined> = { 'as written': undefined, strict: 'strict', trusting: 'trusting' };

/** Where the eval reads and writes. */
export interface EvalOptions {
  runsPath: string;
  suitesPath: string;
  /** One line per usable run: `{ path, decisions: [{ msg, call, tool, decision, reason, us }] }` (rules alone). */
  outPath?: string | undefined;
  /** The trust policy whose decisions `outPath` gets. @default 'as written' */
  outVariant?: Variant;
  /** Folder of the `<suite>.rules` files. @default examples/agentdojo */
  rulesDir?: string;
  /** A model judge for the rules' open `judged(...)` questions, beside the oracle. */
  judge?: EvalJudgeSource;
  /** The rubric file the judge answers with. @default examples/agentdojo/request-covers-action.rubrics.yaml */
  rubricsPath?: string;
  /** Replay only the first n usable runs (a slice, e.g. to bound a live judge's cost). */
  limit?: number;
}

/** What the replay found: the tallies per trust variant and what it skipped. */
export interface EvalResult {
  tallies: Map<string, Tally>;
  wallMs: number;
  skipped: number;
  badLines: number;
  noRulebase: number;
  /** With `judge`: what it did over the whole replay. */
  judge?: JudgeInfo;
}

/** Replays every usable run of a file through its suite's rulebase, both trust variants, rules alone and with the judge. */
export async function runEval({ runsPath, suitesPath, outPath, outVariant = 'as written', rulesDir = join(here, '..'), judge: source, rubricsPath = join(here, '..', 'request-covers-action.rubrics.yaml'), limit }: EvalOptions): Promise<EvalResult> {
  if (!existsSync(runsPath)) throw new Error(`no runs file at ${runsPath}; pass --runs <file.jsonl.gz>`);
  if (!existsSync(suitesPath)) throw new Error(`no suites.json at ${suitesPath}; pass --suites <suites.json>`);
  const suites = (JSON.parse(readFileSync(suitesPath, 'utf8')) as { suites: Record<string, Suite> }).suites;

  const rulebases = new Map<string, Rulebase>();
  const rulebaseFor = (suite: string, variant: Variant): Rulebase | undefined => {
    const key = `${suite}/${variant}`;
    if (rulebases.has(key)) return rulebases.get(key);
    const file = join(rulesDir, `${suite}.rules`);
    const spec = suites[suite];
    if (!existsSync(file) || !spec) return undefined;
    let text = readFileSync(file, 'utf8');
    const policy = POLICY_FILE[variant] && join(rulesDir, `${suite}.${POLICY_FILE[variant]}.rules`);
    if (policy && existsSync(policy)) text += `\n${readFileSync(policy, 'utf8')}`;
    const tools = spec.tools.map((tool) => ({ name: tool.name, parameters: { properties: Object.fromEntries(tool.parameters.map((param) => [param.name, {}])) } }));
    const rulebase = parseRulebase(text, { source: `${suite}.rules`, tools });
    rulebases.set(key, rulebase);
    return rulebase;
  };

  const judge: Judge | undefined = source ? await evalJudge(source, rubricsPath) : undefined;
  const tallies = new Map<string, Tally>();
  const tallyFor = (key: string) => tallies.get(key) ?? (tallies.set(key, emptyTally()), tallies.get(key)!);
  const out = outPath ? createWriteStream(outPath) : undefined;
  let badLines = 0;
  let skipped = 0;
  let noRulebase = 0;
  let replayed = 0;
  const wallStart = performance.now();
  for await (const run of readRuns(runsPath, () => badLines++)) {
    if (!isUsable(run)) {
      skipped++;
      continue;
    }
    if (limit !== undefined && replayed >= limit) break;
    const suite = suites[run.suite_name];
    if (!suite || !rulebaseFor(run.suite_name, 'as written')) {
      noRulebase++;
      continue;
    }
    replayed++;
    const kind = kindOf(run);
    const goal = kind === 'attacked' && run.security ? locateGoalCall(run, suite) : undefined;
    for (const variant of VARIANTS) {
      const rulebase = rulebaseFor(run.suite_name, variant)!;
      const alone = await replayRun(run, rulebase);
      const judged = await replayRun(run, rulebase, oracleJudge(suite, run));
      tallyRun(tallyFor(variant), run, kind, goal, alone, judged);
      if (judge) {
        const counter = { asks: 0 };
        const withModel = await replayRun(run, rulebase, { forRun: (messages) => ruleJudge(judge, messages, counter) });
        tallyModelRun(tallyFor(variant), run, kind, goal, withModel, counter.asks);
      }
      if (variant === outVariant && out) out.write(`${JSON.stringify({ path: run.path, decisions: alone })}\n`);
    }
  }
  const wallMs = performance.now() - wallStart;
  if (out) await new Promise<void>((done, fail) => out.end((error?: Error | null) => (error ? fail(error) : done())));
  const stats = judge?.stats();
  const judgeInfo: JudgeInfo | undefined =
    source && stats
      ? { label: source.label, live: source.live, modelCalls: stats.calls, cacheHits: stats.cacheHits, errors: Object.values(stats.errors).reduce((sum, count) => sum + count, 0), tokens: stats.inputTokens + stats.outputTokens }
      : undefined;
  return { tallies, wallMs, skipped, badLines, noRulebase, ...(judgeInfo ? { judge: judgeInfo } : {}) };
}

async function main(): Promise<void> {
  const runsPath = resolve(option('--runs') ?? join(repo, '../shared/data/agentdojo/runs-dev.jsonl.gz'));
  const suitesPath = resolve(option('--suites') ?? join(dirname(runsPath), 'suites.json'));
  const outVariant = option('--out-trust') ?? 'as written';
  if (!(VARIANTS as readonly string[]).includes(outVariant)) throw new Error(`--out-trust is one of ${VARIANTS.map((variant) => `'${variant}'`).join(', ')}, not '${outVariant}'`);
  const judgeSpec = option('--judge');
  const limitText = option('--limit');
  const limit = limitText === undefined ? undefined : Number(limitText);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new Error(`--limit ${limitText}: pass a whole number > 0 of usable runs`);
  const source = judgeSpec === undefined ? undefined : await judgeSource(judgeSpec);
  const recordTo = option('--record');
  const recorder = source && recordTo !== undefined ? recording(source, recordTo) : undefined;
  const judge = recorder ?? source;
  const rubricsPath = option('--rubrics');
  const result = await runEval({ runsPath, suitesPath, outPath: option('--out'), outVariant: outVariant as Variant, ...(judge ? { judge } : {}), ...(rubricsPath ? { rubricsPath: resolve(rubricsPath) } : {}), ...(limit ? { limit } : {}) });
  recorder?.save();
  printReport(result.tallies, { runsPath, wallMs: result.wallMs, skipped: result.skipped, badLines: result.badLines, noRulebase: result.noRulebase, variants: VARIANTS, ...(result.judge ? { judge: result.judge } : {}) });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
