/**
 * `panoptes verify` at scale: 1,000 expense claims x 5 criteria through the built CLI, the scripted model answering
 * after 50 ms, 20 runs at once. Each run makes 2 model calls (a search with the case's id, then finish), so the ideal
 * is 5,000 x 2 x 50 ms / 20 = 25 s; the target is 1.3 x that. In the same run, a baseline makes the same 10,000
 * waits of 50 ms, 20 at once, with no graph: what the machine's timers alone cost. Memory: the CLI's resident size
 * sampled while it runs (Linux /proc), its peak, and how much it grew from the first quarter of the job to the end.
 * A second row runs 1,000 pairs in-process through `verifyCases` on a graph with a `MemorySaver`, and counts the
 * threads left in it: none unless `keepThreads`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemorySaver } from '@langchain/langgraph';
import { mapWithConcurrency } from 'panoptes';
import { createVerificationGraph, policyRetriever, verifyCases } from 'panoptes/langgraph';
import type * as VerifyCli from '../adapters/langgraph/react/verify-cli.js';
import type { BenchRow } from './harness.js';

const SUITE = 'verify';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/verification/expenses');
const CASES = 1000;
const CONCURRENCY = 20;
const DELAY_MS = 50;
const CALLS_PER_RUN = 2;

type Answer = { case: string; criterion: string; [field: string]: unknown };

/** 1,000 claims made from the example's six, and their answers: each claim gets the verdicts of the one it copies. */
function jobFiles(folder: string) {
  const templates = readFileSync(join(EXAMPLE, 'claims.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const templateAnswers = JSON.parse(readFileSync(join(EXAMPLE, 'answers.json'), 'utf8')) as Answer[];
  const cases: string[] = [];
  const answers: Answer[] = [];
  for (let index = 0; index < CASES; index++) {
    const template = templates[index % templates.length]!;
    const id = `CLAIM-${String(index + 1).padStart(4, '0')}`;
    cases.push(JSON.stringify({ ...template, id }));
    for (const answer of templateAnswers.filter((item) => item.case === template.id)) answers.push({ ...answer, case: id });
  }
  const files = { cases: join(folder, 'claims.jsonl'), answers: join(folder, 'answers.json'), out: join(folder, 'results.jsonl') };
  writeFileSync(files.cases, `${cases.join('\n')}\n`);
  writeFileSync(files.answers, JSON.stringify(answers));
  return files;
}

/** The resident size of a process in MB, from /proc; undefined where there is none. */
function residentMb(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

async function cliRun(files: ReturnType<typeof jobFiles>): Promise<{ wallMs: number; rss: Array<{ atMs: number; mb: number }>; code: number | null; stderr: string }> {
  const args = [join(ROOT, 'dist/src/cli/main.js'), 'verify', '--policy', join(EXAMPLE, 'travel-policy.md'), '--criteria', join(EXAMPLE, 'criteria.yaml'), '--cases', files.cases, '--scripted', files.answers, '--scripted-delay', String(DELAY_MS), '--concurrency', String(CONCURRENCY), '--out', files.out];
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const rss: Array<{ atMs: number; mb: number }> = [];
  const sampler = setInterval(() => {
    const mb = residentMb(child.pid!);
    if (mb !== undefined) rss.push({ atMs: performance.now() - started, mb });
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(sampler);
  return { wallMs: performance.now() - started, rss, code, stderr };
}

/** The same model waits with no graph around them: 2 waits of 50 ms per pair, 20 pairs at once. */
async function timersOnly(): Promise<number> {
  const started = performance.now();
  await mapWithConcurrency(Array.from({ length: CASES * 5 }, (_, index) => index), CONCURRENCY, async () => {
    for (let call = 0; call < CALLS_PER_RUN; call++) await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
  });
  return performance.now() - started;
}

async function scaleRows(): Promise<BenchRow[]> {
  const folder = mkdtempSync(join(tmpdir(), 'panoptes-bench-verify-'));
  try {
    const files = jobFiles(folder);
    const baselineMs = await timersOnly();
    const run = await cliRun(files);
    if (run.code !== 0) throw new Error(`panoptes verify exited ${run.code}: ${run.stderr.slice(-2000)}`);
    const results = readFileSync(files.out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { status: string; usage: { iterations: number } });
    const calls = results.reduce((sum, result) => sum + result.usage.iterations, 0);
    const idealMs = (calls * DELAY_MS) / CONCURRENCY;
    const ratio = run.wallMs / idealMs;
    const peak = Math.max(...run.rss.map((sample) => sample.mb));
    const quarter = run.rss.find((sample) => sample.atMs >= run.wallMs / 4)?.mb ?? Number.NaN;
    const last = run.rss.at(-1)?.mb ?? Number.NaN;
    const row: BenchRow = {
      suite: SUITE,
      name: `${CASES.toLocaleString('en-US')} cases x 5 criteria, scripted model ${DELAY_MS} ms, concurrency ${CONCURRENCY}: panoptes verify wall time`,
      samples: 1,
      p50Us: run.wallMs * 1000,
      p99Us: run.wallMs * 1000,
      meanUs: run.wallMs * 1000,
      extra: {
        'ideal us': Math.round(idealMs * 1000),
        'ratio to ideal': Number(ratio.toFixed(3)),
        'ratio to the timers alone': Number((run.wallMs / baselineMs).toFixed(3)),
        'result lines': results.length,
        'model calls': calls,
        'peak RSS MB': Math.round(peak),
        'RSS MB at a quarter of the job': Math.round(quarter),
        'RSS MB at the end': Math.round(last),
        'load average (1 min) at the end': Number(loadavg()[0]!.toFixed(1)),
      },
      target: '<= 1.3 x ideal',
      met: ratio <= 1.3 && results.length === CASES * 5,
    };
    const baseline: BenchRow = { suite: SUITE, name: `baseline: the same ${(CASES * 5 * CALLS_PER_RUN).toLocaleString('en-US')} waits of ${DELAY_MS} ms, ${CONCURRENCY} at once, no graph: wall time`, samples: 1, p50Us: baselineMs * 1000, p99Us: baselineMs * 1000, meanUs: baselineMs * 1000, extra: { 'ratio to ideal': Number((baselineMs / idealMs).toFixed(3)) } };
    return [baseline, row];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Threads a checkpointer keeps after a job: `verifyCases` deletes each once its result is in. */
async function threadRows(): Promise<BenchRow[]> {
  const criteria = [
    { id: 'receipts', text: 'Every expense of 25 USD or more is supported by an itemised receipt.' },
    { id: 'meals', text: 'Meals stay within the per diem, and no alcohol is claimed.' },
  ];
  const cases = Array.from({ length: 250 }, (_, index) => ({ id: `C${index}`, caseBundle: { id: `C${index}` } }));
  const answers = cases.flatMap((item) => criteria.map((criterion) => ({ case: item.id, criterion: criterion.id, status: 'met' as const, confidence: 0.9, citations: [{ quote: criterion.id === 'receipts' ? 'Every expense of 25 USD or more must be supported by an itemised receipt.' : 'Alcoholic drinks are never reimbursed' }], rationale: 'ok' })));
  // the CLI's scripted model, as built (a module of the package that is not exported)
  const dist = '../dist/adapters/langgraph/react/verify-cli.js';
  const { ScriptedVerifier } = (await import(dist)) as typeof VerifyCli;
  const rows: BenchRow[] = [];
  for (const keepThreads of [false, true]) {
    const checkpointer = new MemorySaver();
    const graph = createVerificationGraph({ model: new ScriptedVerifier(answers, criteria, { file: 'bench' }) as never, retriever: policyRetriever(join(EXAMPLE, 'travel-policy.md')), checkpointer });
    const started = performance.now();
    let met = 0;
    await verifyCases(graph, cases, criteria, { concurrency: CONCURRENCY, keepThreads, onResult: (result) => void (result.status === 'met' && met++) });
    const wallMs = performance.now() - started;
    const threads = new Set<string>();
    for await (const checkpoint of checkpointer.list({})) threads.add(String(checkpoint.config.configurable?.thread_id));
    rows.push({
      suite: SUITE,
      name: `${cases.length * criteria.length} runs through verifyCases with a MemorySaver, keepThreads ${keepThreads}: threads left`,
      samples: 1,
      p50Us: wallMs * 1000,
      p99Us: wallMs * 1000,
      meanUs: wallMs * 1000,
      extra: { 'threads left': threads.size, 'runs met': met },
      ...(keepThreads ? {} : { target: 'no thread left', met: threads.size === 0 && met === cases.length * criteria.length }),
    });
  }
  return rows;
}

export async function verifyBench(): Promise<BenchRow[]> {
  return [...(await threadRows()), ...(await scaleRows())];
}
