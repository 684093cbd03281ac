import { writeFile } from 'node:fs/promises';
import { loadScenarios, renderJUnit, renderScenarioText, runScenarios, type ScenarioReport } from '../../scenarios/index.js';
import type { Output } from '../output.js';
import { registryOrReport } from '../extension-modules.js';

export interface TestCommandOptions {
  /** Workflow file for scenarios that name none. */
  workflow?: string;
  json?: boolean;
  /** Also write JUnit XML here. */
  junit?: string;
  /** `--module <file>`: modules whose constraint types, strategies and tiers the workflows may name. */
  module?: string[];
}

/** Where the progress bar goes: stderr, redrawn in place, only on a terminal. */
export interface TestProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/** Above this many scenarios a terminal gets a progress bar. */
const PROGRESS_THRESHOLD = 20;

/**
 * `panoptes test [files...]`: runs scenario files (default: `panoptes/scenarios`) and prints a pass/fail table with a
 * diff per failure and the constraints, interventions and guards no scenario exercised; `--json`, `--junit <file>`.
 * @returns the exit code: 0 when every scenario passed, 1 when any failed or could not run, 2 when no scenario was
 * found, a `--module` does not load, or the JUnit file could not be written.
 */
export async function testCommand(files: string[], options: TestCommandOptions, output: Output, progress: TestProgressStream = process.stderr): Promise<number> {
  const registry = await registryOrReport(options.module, output);
  if (!registry) return 2;
  const { scenarios, problems } = await loadScenarios(files.length > 0 ? files : ['panoptes/scenarios']);
  let drawn = -1;
  const run = await runScenarios(scenarios, {
    ...(options.workflow === undefined ? {} : { workflow: options.workflow }),
    registry,
    // Own failures stay out of a scenario's verdict; decision lines (--debug) go to stderr.
    logger: { warn: () => {}, debug: (line: string) => output.err(line) },
    onProgress: ({ done, total }) => {
      if (!progress.isTTY || total <= PROGRESS_THRESHOLD) return;
      const percent = Math.floor((done * 100) / total);
      if (percent === drawn) return;
      drawn = percent;
      const filled = Math.round(percent / 4);
      progress.write(`\rtest [${'█'.repeat(filled)}${'░'.repeat(25 - filled)}] ${done}/${total} scenarios`);
    },
  });
  if (drawn >= 0) progress.write('\r\u001b[2K');
  const report: ScenarioReport = { ...run, problems, summary: { ...run.summary, problems: problems.length } };
  if (options.junit !== undefined) {
    try {
      await writeFile(options.junit, renderJUnit(report));
    } catch (error) {
      output.err(`cannot write the JUnit report ${options.junit}: ${(error as Error).message}`);
      return 2;
    }
  }
  if (options.json) output.out(JSON.stringify(report, null, 2));
  else for (const line of renderScenarioText(report, output.colors)) output.out(line);
  if (scenarios.length === 0 && problems.length === 0) {
    output.err(`no scenario files found in ${files.length > 0 ? files.join(', ') : 'panoptes/scenarios'}`);
    return 2;
  }
  const { failed, errors } = report.summary;
  return failed + errors + problems.length === 0 ? 0 : 1;
}
