/**
 * `npm run bench`: runs every suite, prints one table, writes bench/results/latest.json.
 * Pass suite names to run only those: `npm run bench -- constraints`.
 *
 * The suites measure the package as it ships: they import `panoptes` by name, and with the build's tsconfig (no
 * `paths` to the sources) Node resolves it to `dist/`, compiled by `tsc`. Run through tsx from the sources instead,
 * each closure would also pay tsx's `__name` helper, about 30 us per model call of the adapter suites.
 *
 * Each suite runs in a process of its own: a suite measured after another would find Panoptes' code (and the hosts')
 * already optimised by V8, so its "first runs" would depend on the order of the suites.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './harness.js';

type Suite = () => Promise<BenchRow[]> | BenchRow[];

const suites: Record<string, () => Promise<Suite>> = {
  constraints: async () => (await import('./constraints.js')).constraintsBench,
  workflow: async () => (await import('./workflow.js')).workflowBench,
  load: async () => (await import('./load.js')).loadBench,
  monitor: async () => (await import('./monitor.js')).monitorBench,
  telemetry: async () => (await import('./telemetry.js')).telemetryBench,
  embed: async () => (await import('./embed.js')).embedBench,
  guards: async () => (await import('./guards.js')).guardsBench,
  provenance: async () => (await import('./provenance.js')).provenanceBench,
  loops: async () => (await import('./loops.js')).loopsBench,
  'adapters-langchain': async () => (await import('./adapters-langchain.js')).langchainAdapterBench,
  'adapters-langchain-checkpointed': async () => (await import('./adapters-langchain-checkpointed.js')).langchainCheckpointedBench,
  'adapters-langgraph': async () => (await import('./adapters-langgraph.js')).langgraphAdapterBench,
  'adapters-ai-sdk': async () => (await import('./adapters-ai-sdk.js')).aiSdkAdapterBench,
  'withheld-text': async () => (await import('./withheld-text.js')).withheldTextBench,
  react: async () => (await import('./react.js')).reactBench,
  verify: async () => (await import('./verify.js')).verifyBench,
  authoring: async () => (await import('./authoring.js')).authoringBench,
  judge: async () => (await import('./judge.js')).judgeBench,
  proxy: async () => (await import('./proxy.js')).proxyBench,
  'proxy-redis': async () => (await import('./proxy-redis.js')).proxyRedisBench,
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(`Unknown suite: ${unknown.join(', ')}. Suites: ${Object.keys(suites).join(', ')}.`);
  process.exit(2);
}

// In a suite's own process: run it and hand its rows back through the file the parent named.
const rowsFile = process.env.PANOPTES_BENCH_ROWS;
if (rowsFile) {
  writeFileSync(rowsFile, JSON.stringify(await (await suites[wanted[0]!]!())()));
  process.exit(0);
}

const rows: BenchRow[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'panoptes-bench-'));
for (const name of Object.keys(suites)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  const file = join(scratch, `${name}.json`);
  // The same Node flags (tsx's loader, --expose-gc) and environment (tsx's tsconfig) as this process.
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name], { stdio: 'inherit', env: { ...process.env, PANOPTES_BENCH_ROWS: file } });
  if (child.status !== 0) {
    console.error(`Suite ${name} failed (exit ${child.status ?? child.signal}).`);
    process.exit(1);
  }
  rows.push(...(JSON.parse(readFileSync(file, 'utf8')) as BenchRow[]));
}
rmSync(scratch, { recursive: true, force: true });

const notes = (row: BenchRow) => Object.entries(row.extra ?? {}).map(([key, value]) => `${key} ${value}`).join(', ');
const format = (us: number) => (us < 10 ? us.toFixed(2) : us < 1000 ? us.toFixed(1) : us.toFixed(0));
console.log(['suite', 'measure', 'p50 us', 'p99 us', 'mean us', 'target', 'met', 'notes'].join(' | '));
for (const row of rows) {
  console.log(
    [row.suite, row.name, ...(row.samples === 0 ? ['-', '-', '-'] : [format(row.p50Us), format(row.p99Us), format(row.meanUs)]), row.target ?? '', row.met === undefined ? '' : row.met ? 'yes' : 'NO', notes(row)].join(' | '),
  );
}
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const file = new URL('./results/latest.json', import.meta.url);
writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2));
console.log(`\nwrote ${file.pathname}`);
