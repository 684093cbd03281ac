import { createColors } from 'picocolors';
import { formatDiagnostic, type Diagnostic } from '../diagnostics/index.js';
import { lineWriter } from './line-writer.js';

/** Where a command writes, and whether it may use colour. Injected so tests capture output. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
  colors: ReturnType<typeof createColors>;
}

/**
 * Console output, coloured only when the stream is a terminal and NO_COLOR is unset (FORCE_COLOR forces it). Lines
 * written after the reader closed the pipe are dropped quietly (see `lineWriter`).
 */
export function consoleOutput(): Output {
  const enabled = process.env.FORCE_COLOR ? process.env.FORCE_COLOR !== '0' : Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return {
    out: lineWriter(process.stdout),
    err: lineWriter(process.stderr),
    colors: createColors(enabled),
  };
}

/** One diagnostic, compiler style, with the severity coloured. */
export function renderDiagnostic(diagnostic: Diagnostic, output: Output): string {
  const { colors } = output;
  const severity = diagnostic.severity === 'error' ? colors.red('error') : colors.yellow('warning');
  return formatDiagnostic(diagnostic).replace(` ${diagnostic.severity} `, ` ${severity} `);
}

/** `1 error`, `2 warnings`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** One checked file, as `validate` and `rules check` report it. More keys go into the JSON as they are. */
export interface FileReport {
  file: string;
  ok: boolean;
  diagnostics: Diagnostic[];
}

/**
 * Prints checked files compiler style (a mark per file, its diagnostics, a summary line), or as JSON, and returns the
 * exit code: 0 when no file has errors, 1 otherwise.
 * @param describe optional text after a file's name (what it holds), in text mode only.
 */
export function printFileReports<Report extends FileReport>(reports: Report[], json: boolean, output: Output, describe?: (report: Report) => string): number {
  const count = (severity: Diagnostic['severity']) =>
    reports.reduce((sum, report) => sum + report.diagnostics.filter((diagnostic) => diagnostic.severity === severity).length, 0);
  const errors = count('error');
  const warnings = count('warning');
  if (json) {
    output.out(JSON.stringify({ ok: errors === 0, errors, warnings, files: reports }, null, 2));
    return errors === 0 ? 0 : 1;
  }
  const { colors } = output;
  for (const report of reports) {
    const detail = describe?.(report);
    output.out(`${report.ok ? colors.green('✓') : colors.red('✗')} ${report.file}${detail ? colors.dim(` ${detail}`) : ''}`);
    for (const diagnostic of report.diagnostics) output.out(`  ${renderDiagnostic(diagnostic, output)}`);
  }
  const invalid = reports.filter((report) => !report.ok).length;
  const verdict = invalid === 0 ? colors.green('all valid') : colors.red(`${invalid} with errors`);
  output.out(`\n${plural(reports.length, 'file')}: ${verdict} (${plural(errors, 'error')}, ${plural(warnings, 'warning')})`);
  return errors === 0 ? 0 : 1;
}
