import { relative } from 'node:path';
import type { ScenarioReport } from './types.js';

/** Colours for the table; identity functions for plain text. */
export interface ScenarioPaint {
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
}

/**
 * The report for a terminal: one row per scenario (mark, name, file, time), then a diff for each failure
 * (`- expected` / `+ actual` per expectation), the files that could not be read, the coverage gaps and a summary.
 */
export function renderScenarioText(report: ScenarioReport, paint: ScenarioPaint): string[] {
  const lines: string[] = [];
  const width = Math.min(48, Math.max(8, ...report.results.map((result) => result.name.length)));
  for (const result of report.results) {
    const mark = result.status === 'passed' ? paint.green('✓ pass') : result.status === 'failed' ? paint.red('✗ FAIL') : paint.red('! ERROR');
    lines.push(`${mark}  ${result.name.padEnd(width)}  ${paint.dim(`${result.file}  ${result.durationMs.toFixed(1)} ms`)}`);
  }
  for (const result of report.results.filter((result) => result.status !== 'passed')) {
    lines.push('', `${paint.red(result.status === 'failed' ? 'FAIL' : 'ERROR')} ${result.name} (${result.file})`);
    if (result.error) lines.push(`  ${result.error}`);
    for (const mismatch of result.mismatches) {
      lines.push(`  ${mismatch.field}:`, `    ${paint.green(`- expected ${JSON.stringify(mismatch.expected)}`)}`, `    ${paint.red(`+ actual   ${JSON.stringify(mismatch.actual)}`)}`);
    }
    if (result.mismatches.length > 0) lines.push(paint.dim(`  trace: ${result.actual.trace.join(' -> ')}`));
  }
  if (report.problems.length > 0) {
    lines.push('', paint.red('Scenario files that could not be read:'));
    for (const problem of report.problems) lines.push(`  ${problem.text.startsWith(problem.file) ? problem.text : `${problem.file}: ${problem.text}`}`);
  }
  // Files are named from the working directory, as the user typed them.
  const named = (file: string) => relative(process.cwd(), file) || file;
  const gaps = [
    ...Object.entries(report.coverage.constraints).flatMap(([file, names]) => names.map((name) => `constraint ${name} (${named(file)})`)),
    ...Object.entries(report.coverage.interventions).flatMap(([file, names]) => names.map((name) => `intervention ${name} (${named(file)})`)),
    ...Object.entries(report.coverage.guards).flatMap(([file, names]) => names.map((name) => `guard ${name} (${named(file)})`)),
  ];
  if (gaps.length > 0) {
    lines.push('', paint.yellow(`Not exercised by any scenario (${gaps.length}):`));
    for (const gap of gaps) lines.push(`  ${gap}`);
  }
  const { summary } = report;
  const verdict = summary.failed + summary.errors + summary.problems === 0 ? paint.green('all passed') : paint.red(`${summary.failed} failed, ${summary.errors + summary.problems} errors`);
  lines.push('', `${summary.scenarios} scenario${summary.scenarios === 1 ? '' : 's'}: ${summary.passed} passed; ${verdict} (${summary.durationMs.toFixed(0)} ms)`);
  return lines;
}
