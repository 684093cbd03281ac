import { readFile } from 'node:fs/promises';
import type { Diagnostic } from '../../diagnostics/index.js';
import { lintWorkflow, validateWorkflow } from '../../workflow/index.js';
import { plural, printFileReports, type FileReport, type Output } from '../output.js';

export interface ValidateCommandOptions {
  json?: boolean;
  /** `--no-strict`: unknown states become warnings, as the reference engine accepted them. */
  strict?: boolean;
}

interface WorkflowFileReport extends FileReport {
  workflow?: { name: string; version: string; states: number; transitions: number; constraints: number };
}

/**
 * `panoptes validate <file...>`: checks each workflow file and lints the valid ones.
 * @returns the exit code: 0 when every file is valid (warnings allowed), 1 when any has errors.
 */
export async function validateCommand(files: string[], { json = false, strict = true }: ValidateCommandOptions, output: Output): Promise<number> {
  const reports = await Promise.all(files.map((file) => validateFile(file, strict)));
  return printFileReports(reports, json, output, ({ workflow }) =>
    workflow
      ? `${workflow.name} ${workflow.version}: ${plural(workflow.states, 'state')}, ${plural(workflow.transitions, 'transition')}, ${plural(workflow.constraints, 'constraint')}`
      : '',
  );
}

async function validateFile(file: string, strict: boolean): Promise<WorkflowFileReport> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String((error as Error).message);
    return { file, ok: false, diagnostics: [{ severity: 'error', code: 'unreadable-file', message: `cannot read the file: ${reason}.`, path: '', source: file }] };
  }
  const result = validateWorkflow(text, { source: file, strict });
  if (!result.workflow) return { file, ok: false, diagnostics: result.diagnostics };
  const { definition } = result.workflow;
  return {
    file,
    ok: result.ok,
    workflow: {
      name: definition.name,
      version: definition.version,
      states: definition.states.length,
      transitions: definition.transitions.length,
      constraints: definition.constraints.length,
    },
    diagnostics: [...result.diagnostics, ...lintWorkflow(result.workflow)],
  };
}

