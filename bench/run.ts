/**
 * `npm run bench`: runs every suite, prints one table, writes bench/results/latest.json.
 * Pass suite names to run only those: `npm run bench -- constraints`.
 *
 * The suites measure the package as it ships: they import `panoptes` by name, and with the build's tsconfig (no
 * `paths` to the sources) Node resolves it to `dist/`, compiled by `tsc`. Run through tsx from the sources instead,
 * each closure would also pay tsx's `__name` helper, about 30 us per model call of the adapter suites.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { BenchRow } from './harness.js';

type Suite = () => Promise<BenchRow[]> | BenchRow[];

const suites: Record<string, () => Promise<Suite>> = {
  constraints: async () => (await import('./constraints.js')).constraintsBench,
  workflow: async () => (await import('./workflow.js')).workflowBench,
  monitor: async () => (await import('./monitor.js')).monitorBench,
  embed: async () => (await import('./embed.js')).embedBench,
  guards: async () => (await import('./guards.js')).guardsBench,
  loops: async () => (await import('./loops.js')).loopsBench,
  'adapters-langchain': async () => (await import('./adapters-langchain.js')).langchainAdapterBench,
  'adapters-langgraph': async () => (await import('./adapters-langgraph.js')).langgraphAdapterBench,
  'adapters-ai-sdk': async () => (await import('./adapters-ai-sdk.js')).aiSdkAdapterBench,
};

const wanted = process.argv.slice(2);
const rows: BenchRow[] = [];
for (const [name, load] of Object.entries(suites)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  rows.push(...(await (await load())()));
}

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
