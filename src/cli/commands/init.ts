import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostFile, hostLines, RULES_TEMPLATE, SCENARIO_CONFIRMED, SCENARIO_UNCONFIRMED, WORKFLOW_TEMPLATE, type InitHost } from '../init-templates.js';
import type { Output } from '../output.js';

export interface InitCommandOptions {
  host: InitHost;
  /** The folder to create. @default 'panoptes' */
  dir?: string;
  /** Overwrite files that exist. */
  force?: boolean;
}

/**
 * `panoptes init --host <host>`: writes a starter folder (a commented `workflow.yaml` with the schema line for
 * editors, `policy.rules`, `scenarios/` with two scenarios that pass, and the host's wiring: `agent.mjs`, which runs
 * offline and refuses the forbidden call before it runs, or the proxy's `panoptes.yaml`) and prints how to use it. Refuses to overwrite a file without `--force`.
 * @returns 0, or 1 when a file exists (nothing is written then) or cannot be written.
 */
export async function initCommand({ host, dir = 'panoptes', force = false }: InitCommandOptions, output: Output): Promise<number> {
  const files: Array<[string, string]> = [
    [join(dir, 'workflow.yaml'), WORKFLOW_TEMPLATE],
    [join(dir, 'policy.rules'), RULES_TEMPLATE],
    [join(dir, 'scenarios', 'confirmed-refund.yaml'), SCENARIO_CONFIRMED],
    [join(dir, 'scenarios', 'unconfirmed-refund.yaml'), SCENARIO_UNCONFIRMED],
    hostFile(host, dir),
  ];
  try {
    await mkdir(join(dir, 'scenarios'), { recursive: true });
    // `wx` fails on an existing file, so a second `init` cannot clobber a team's edits.
    for (const [file, text] of files) await writeFile(file, text, { flag: force ? 'w' : 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    output.err(code === 'EEXIST' ? `${(error as NodeJS.ErrnoException).path} exists; pass --force to overwrite it, or --dir to write elsewhere` : `cannot write ${dir}: ${(error as Error).message}`);
    return 1;
  }
  for (const [file] of files) output.out(`${output.colors.green('created')} ${file}`);
  const lines = ['', ...hostLines(host, dir), '', `Check and test the procedure: npx panoptes validate ${dir}/workflow.yaml && npx panoptes test ${dir}/scenarios`];
  for (const line of lines) output.out(line);
  return 0;
}
