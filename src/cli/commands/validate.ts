import { readFile } from 'node:fs/promises';
import type { Diagnostic } from '../../diagnostics/index.js';
import { lintWorkflow, validateWorkflow } from '../../workflow/index.js';
import { plural, renderDiagnostic, type Output } from '../output.js';

export interface ValidateCommandOptions {
  json?: boolean;
  /** `--no-strict`: unknown states become warnings, as the reference engine accepted them. */
  strict?: boolean;
}

interface FileReport {
  file: string;
  ok: boolean;
  workflow?: { name: string; version: string; states: number; transitions: number; constraints: number };
  diagnostics: Diagnostic[];
}

/**
 * `panoptes validate <file...>`: checks each workflow file and lints the valid ones.
 * @returns the exit code: 0 when every file is valid (warnings allowed), 1 when any has errors.
 */
export async function validateCommand(files: string[], { json = false, strict = true }: ValidateCommandOptions, output: Output): Promise<number> {
  const reports = await Promise.all(files.map((file) => validateFile(file, strict)));
  const errors = count(reports, 'error');
  const warnings = count(reports, 'warning');
  if (json) {
    output.out(JSON.stringify({ ok: errors === 0, errors, warnings, files: reports }, null, 2));
    return errors === 0 ? 0 : 1;
  }
  const { colors } = output;
  for (const report of reports) {
    const mark = report.ok ? colors.green('✓') : colors.red('✗');
    const summary = report.workflow
      ? colors.dim(
          ` ${report.workflow.name} ${report.workflow.version}: ${plural(report.workflow.states, 'state')}, ${plural(report.workflow.transitions, 'transition')}, ${plural(report.workflow.constraints, 'constraint')}`,
        )
      : '';
    output.out(`${mark} ${report.file}${summary}`);
    for (const diagnostic of report.diagnostics) output.out(`  ${renderDiagnostic(diagnostic, output)}`);
  }
  const invalid = reports.filter((report) => !report.ok).length;
  const verdict = invalid === 0 ? colors.green('all valid') : colors.red(`${invalid} with errors`);
  output.out(`\n${plural(reports.length, 'file')}: ${verdict} (${plural(errors, 'error')}, ${plural(warnings, 'warning')})`);
  return errors === 0 ? 0 : 1;
}

async function validateFile(file: string, strict: boolean): Promise<FileReport> {
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

function count(reports: FileReport[], severity: Diagnostic['severity']): number {
  return reports.reduce((sum, report) => sum + report.diagnostics.filter((diagnostic) => diagnostic.severity === severity).length, 0);
}
