#!/usr/bin/env node
/**
 * The `panoptes` command line. Each command lives in `commands/` and returns an exit code; this file only parses
 * arguments and turns thrown Panoptes errors into readable messages.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { PanoptesError } from '../errors/index.js';
import { graphCommand } from './commands/graph.js';
import { validateCommand } from './commands/validate.js';
import { consoleOutput } from './output.js';

const output = consoleOutput();
const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command()
  .name('panoptes')
  .description('Check workflow files and audit agent sessions against them.')
  .version(version)
  .showHelpAfterError();

program
  .command('validate')
  .description('validate workflow files; exit 1 when any has errors')
  .argument('<files...>', 'workflow YAML files')
  .option('--json', 'print the findings as JSON')
  .option('--no-strict', 'report references to unknown states as warnings, not errors')
  .action(async (files: string[], options: { json?: boolean; strict: boolean }) => {
    process.exitCode = await validateCommand(files, options, output);
  });

program
  .command('graph')
  .description('print a workflow as a Mermaid state diagram')
  .argument('<file>', 'workflow YAML file')
  .action(async (file: string) => {
    process.exitCode = await graphCommand(file, output);
  });

try {
  await program.parseAsync();
} catch (error) {
  if (!PanoptesError.isInstance(error)) throw error;
  output.err(error.message);
  process.exitCode = 1;
}
