/**
 * Loading hostile-sized inputs (issue 13): a workflow just under the 1 MiB cap whose states list no transitions (any
 * state may follow any other, the shape that cost N x N), its lint, and a rulebase of facts just under the cap. The
 * baseline is the `yaml` library's positioned parse of the same text, which loading paid in full before valid text
 * went through js-yaml (the positioned parse now runs only for a finding). Then an audit
 * of one 100,000-message transcript, against one of 10,000 (linear time shows as a ratio near 10).
 *
 * Memory is measured in a child process per input, so one load's garbage does not count against the next: the peak
 * resident set (`maxRSS`) of a Node process that only reads the file and loads it, against a process that only
 * reads the file (the runtime's own footprint).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { auditTranscripts, lintWorkflow, loadRulebase, loadWorkflow } from 'panoptes';
import { summarize, type BenchRow } from './harness.js';

const CAP = 1024 * 1024;

/** `states` states, each with a tool call and no transitions, and a few constraints over them, under `CAP` bytes. */
function workflowText(): string {
  const constraints = ['constraints:', '  - { name: c1, type: eventually, target: s1 }', '  - { name: c2, type: response, trigger: s2, target: s3 }', '  - { name: c3, type: always, condition: "!s4" }'];
  const lines = ['name: implicit', 'states:'];
  let size = constraints.join('\n').length + 100;
  for (let index = 0; ; index++) {
    const line = `  - { name: s${index}${index === 0 ? ', initial: true' : ''}, classification: { tool_calls: [t${index}] } }`;
    if (size + line.length + 1 > CAP) break;
    lines.push(line);
    size += line.length + 1;
  }
  return [...lines, ...constraints].join('\n') + '\n';
}

function rulebaseText(): string {
  const lines = ['rule known(X) :- f(X, N), N >= 0.'];
  let size = lines[0]!.length + 1;
  for (let index = 0; ; index++) {
    const line = `fact f(item_${index}, ${index}).`;
    if (size + line.length + 1 > CAP) break;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

/** Peak RSS in MB of a fresh Node process running `code` (an ES module importing `panoptes` by name, as the bench does). */
function peakRssMb(code: string): number {
  const child = spawnSync(process.execPath, [...process.execArgv, '--input-type=module', '-e', `${code}\nconsole.log(process.resourceUsage().maxRSS);`], { encoding: 'utf8', cwd: process.cwd() });
  if (child.status !== 0) throw new Error(child.stderr);
  return Number(child.stdout.trim().split('\n').pop()) / 1024;
}

async function timeRuns(run: () => Promise<unknown> | unknown, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = performance.now();
    await run();
    times.push((performance.now() - start) * 1000);
  }
  return times;
}

/** Runs the suite: three loads and a lint, five timed runs each after one untimed, and each one's peak memory. */
export async function loadBench(): Promise<BenchRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'panoptes-load-'));
  const workflowFile = join(scratch, 'implicit.yaml');
  const rulesFile = join(scratch, 'facts.rules');
  writeFileSync(workflowFile, workflowText());
  writeFileSync(rulesFile, rulebaseText());
  const workflowSource = readFileSync(workflowFile, 'utf8');
  const states = (workflowSource.match(/^ {2}- \{ name:/gm) ?? []).length;
  const facts = readFileSync(rulesFile, 'utf8').split('\n').length - 2;
  const rows: BenchRow[] = [];
  const row = (name: string, times: number[], extra: Record<string, number | string>, target?: string, met?: boolean): void => {
    rows.push({ suite: 'load', name, samples: times.length, ...summarize(times), extra, ...(target ? { target, met } : {}) });
  };
  const read = `import { readFileSync } from 'node:fs'; const text = readFileSync(${JSON.stringify(workflowFile)}, 'utf8');`;
  const idleMb = peakRssMb(read);

  const yamlTimes = await timeRuns(() => parseDocument(workflowSource).toJS(), 6);
  row(`the yaml library's positioned parse alone of the same text (baseline: what loading cost before the js-yaml path)`, yamlTimes.slice(1), { bytes: workflowSource.length, 'peak RSS MB': Math.round(peakRssMb(`${read} import { parseDocument } from 'yaml'; parseDocument(text).toJS();`)), 'process alone MB': Math.round(idleMb) });

  const workflow = await loadWorkflow(workflowFile);
  const loadTimes = (await timeRuns(() => loadWorkflow(workflowFile), 6)).slice(1);
  const loadMb = peakRssMb(`import { loadWorkflow } from 'panoptes'; await loadWorkflow(${JSON.stringify(workflowFile)});`);
  const p50Ms = summarize(loadTimes).p50Us / 1000;
  row(`loadWorkflow, 1 MiB, ${states.toLocaleString('en-US')} states with no transitions listed`, loadTimes, { bytes: workflowSource.length, 'peak RSS MB': Math.round(loadMb), 'process alone MB': Math.round(idleMb) }, '<= 1 s, <= 200 MB', p50Ms <= 1000 && loadMb - idleMb <= 200);

  const lintTimes = (await timeRuns(() => lintWorkflow(workflow), 6)).slice(1);
  row(`lintWorkflow (panoptes validate's lint) of that workflow`, lintTimes, { warnings: lintWorkflow(workflow).length });

  const rulesTimes = (await timeRuns(() => loadRulebase(rulesFile), 6)).slice(1);
  const rulesMb = peakRssMb(`import { loadRulebase } from 'panoptes'; await loadRulebase(${JSON.stringify(rulesFile)});`);
  const rulesP50Ms = summarize(rulesTimes).p50Us / 1000;
  row(`loadRulebase, 1 MiB, ${facts.toLocaleString('en-US')} facts`, rulesTimes, { 'peak RSS MB': Math.round(rulesMb), 'process alone MB': Math.round(idleMb) }, '<= 1 s, <= 200 MB', rulesP50Ms <= 1000 && rulesMb - idleMb <= 200);

  const support = await loadWorkflow('examples/workflows/customer-support.yaml');
  const auditRuns = async (messages: number) => {
    const file = join(scratch, `transcript-${messages}.json`);
    writeFileSync(file, JSON.stringify(transcript(messages)));
    return (await timeRuns(() => auditTranscripts({ workflow: support, files: [file] }), 4)).slice(1);
  };
  const audit10k = await auditRuns(10_000);
  row('auditTranscripts, one transcript of 10,000 messages (baseline: a tenth of the size)', audit10k, { messages: 10_000 });
  const audit100k = await auditRuns(100_000);
  row('auditTranscripts, one transcript of 100,000 messages', audit100k, { messages: 100_000, 'ratio to 10,000': Number((summarize(audit100k).p50Us / summarize(audit10k).p50Us).toFixed(1)) }, '<= 3 s', summarize(audit100k).p50Us <= 3_000_000);
  rmSync(scratch, { recursive: true, force: true });
  return rows;
}

/** A support chat in OpenAI's format: turns of a question and an answer, every third answer a tool call with its result. */
function transcript(length: number): unknown[] {
  const messages: unknown[] = [{ role: 'system', content: 'You are a support agent.' }];
  for (let turn = 0; messages.length < length; turn++) {
    messages.push({ role: 'user', content: `Message ${turn}: a question about order ${turn}.` });
    if (turn % 3 === 0) {
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${turn}`, type: 'function', function: { name: 'lookup_customer', arguments: `{"id":${turn}}` } }] });
      messages.push({ role: 'tool', tool_call_id: `c${turn}`, content: 'found' });
    } else {
      messages.push({ role: 'assistant', content: turn % 3 === 1 ? 'Hello! Could you tell me more?' : 'Is there anything else I can help with?' });
    }
  }
  return messages.slice(0, length);
}
