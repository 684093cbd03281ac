/**
 * Authoring (issue 19). Counterexample search in `validate`: a 50-state, 300-transition workflow with 20 constraints
 * must take <= 200 ms for all constraints; the baseline row, in the same run, is the lint that already walked the same
 * product (`lintWorkflow`: can each constraint fire, can it be satisfied).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditTranscripts, findWorkflowCounterexamples, lintWorkflow, loadScenarios, loadWorkflow, parseWorkflow, runScenarios, type Workflow } from 'panoptes';
import { summarize, timedRun, type BenchRow } from './harness.js';

const STATE_COUNT = 50;
const OUT_DEGREE = 6; // 50 x 6 = 300 transitions
const STATES = Array.from({ length: STATE_COUNT }, (_, index) => `s${String(index).padStart(2, '0')}`);
const TYPES = ['precedence', 'response', 'never', 'until', 'next', 'eventually', 'always'] as const;

/** A deterministic pseudo-random workflow (a linear congruential generator), the same in every run. */
function workflowText(): string {
  let seed = 19;
  const random = (limit: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % limit);
  const lines = ['name: counterexample-bench', 'states:'];
  STATES.forEach((state, index) => lines.push(`  - { name: ${state}${index === 0 ? ', initial: true' : ''}${index >= 45 ? ', terminal: true' : ''}, classification: { tool_calls: [t_${state}] } }`));
  lines.push('transitions:');
  for (const state of STATES) {
    const targets = new Set<string>();
    while (targets.size < OUT_DEGREE) targets.add(STATES[random(STATE_COUNT)]!);
    for (const target of targets) lines.push(`  - { from: ${state}, to: ${target} }`);
  }
  lines.push('constraints:');
  for (let index = 0; index < 20; index++) {
    const type = TYPES[index % TYPES.length]!;
    const a = STATES[1 + random(STATE_COUNT - 1)]!;
    const b = STATES[1 + random(STATE_COUNT - 1)]!;
    const parameters =
      type === 'always' ? `condition: "!${a}"` : type === 'never' || type === 'eventually' ? `target: ${a}` : `trigger: ${a}, target: ${b}`;
    lines.push(`  - { name: c${index}, type: ${type}, ${parameters} }`);
  }
  return lines.join('\n');
}

const SAMPLES = 30;

const SCENARIOS = 1_000;
const EXAMPLES = fileURLToPath(new URL('../examples/', import.meta.url));

/**
 * `panoptes test` on 1,000 scenarios (target <= 10 s): the three customer-support transcripts, each scenario file
 * pointing at one, read from disk and run; the baseline is `panoptes audit` of the same 1,000 conversations.
 */
async function scenarioRows(): Promise<BenchRow[]> {
  const folder = mkdtempSync(join(tmpdir(), 'panoptes-bench-scenarios-'));
  const workflowFile = join(EXAMPLES, 'workflows/customer-support.yaml');
  const transcripts = ['refund-clean.json', 'refund-skipped-verification.json'].map((name) => JSON.parse(readFileSync(join(EXAMPLES, 'transcripts', name), 'utf8')) as unknown[]);
  const lines: string[] = [];
  for (let index = 0; index < SCENARIOS; index++) {
    const messages = transcripts[index % transcripts.length]!;
    const expectation = index % 2 === 0 ? 'refused: []' : 'refused: [issue_refund]';
    writeFileSync(join(folder, `s${String(index).padStart(4, '0')}.yaml`), `workflow: ${workflowFile}\nconversation: ${JSON.stringify(messages)}\nexpect:\n  ${expectation}\n`);
    lines.push(JSON.stringify({ id: `s${index}`, messages }));
  }
  const jsonl = join(folder, 'all.jsonl');
  writeFileSync(jsonl, lines.join('\n'));
  let passed = 0;
  const test = await timedRun(async () => {
    const { scenarios } = await loadScenarios([folder]);
    passed = (await runScenarios(scenarios)).summary.passed;
  });
  const workflow = await loadWorkflow(workflowFile);
  const audit = await timedRun(() => auditTranscripts({ workflow, files: [jsonl], logger: { warn: () => undefined } }));
  rmSync(folder, { recursive: true, force: true });
  const row = (name: string, { wallUs, cpuUs }: { wallUs: number; cpuUs: number }, extra: Record<string, number>): BenchRow => ({
    suite: 'authoring',
    name,
    samples: 1,
    p50Us: wallUs,
    p99Us: wallUs,
    meanUs: wallUs,
    extra: { cpuMs: Math.round(cpuUs / 1000), ...extra },
  });
  return [
    { ...row(`panoptes test, ${SCENARIOS} scenario files`, test, { passed }), target: '<= 10 s', met: test.wallUs <= 10_000_000 },
    row(`baseline: audit of the same ${SCENARIOS} conversations (one .jsonl)`, audit, {}),
  ];
}

/** Runs the suite: counterexample search over all 20 constraints against the existing lint, and 1,000 scenarios. */
export async function authoringBench(): Promise<BenchRow[]> {
  const text = workflowText();
  // A fresh workflow per sample: the lint memoises its answers per workflow object. Positions are indexed lazily,
  // on the first `positionOf`, by parsing the text again (about 30 ms here); `validate` has paid that in the lint
  // before the search runs, so it is paid here before the clock starts.
  const fresh = (): Workflow => {
    const workflow = parseWorkflow(text);
    workflow.positionOf('states[0]');
    return workflow;
  };
  const time = (run: (workflow: Workflow) => unknown) => {
    for (let warm = 0; warm < 5; warm++) run(fresh());
    const times: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample++) {
      const workflow = fresh();
      const start = performance.now();
      run(workflow);
      times.push((performance.now() - start) * 1000);
    }
    return summarize(times);
  };
  const sample = findWorkflowCounterexamples(fresh());
  const search = time((workflow) => findWorkflowCounterexamples(workflow));
  const lint = time((workflow) => lintWorkflow(workflow));
  return [
    {
      suite: 'authoring',
      name: 'counterexamples, 50 states, 300 transitions, 20 constraints',
      samples: SAMPLES,
      ...search,
      target: '<= 200 ms',
      met: search.p99Us <= 200_000,
      extra: { breakable: sample.counterexamples.length, longestPath: Math.max(0, ...sample.counterexamples.map((found) => found.path.length)) },
    },
    { suite: 'authoring', name: 'baseline: lintWorkflow on the same workflow', samples: SAMPLES, ...lint },
    ...(await scenarioRows()),
  ];
}
