import type { Verdict } from '../temporal/index.js';
import { SEVERITIES, type Severity } from '../workflow/index.js';
import { auditExitCode, DEFAULT_FAIL_ON } from './exit-code.js';
import { liveActions, messageLabel, stepMarks, violationLabel } from './places.js';
import type { AuditReport, SessionAudit, SeverityCounts, TranscriptProblem } from './types.js';

/** Colour functions; picocolors' `createColors()` fits, and so does one that returns its input (no colour). */
export interface Paint {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const plain = (text: string) => text;
/** No colour at all. */
export const NO_PAINT: Paint = { red: plain, green: plain, yellow: plain, cyan: plain, dim: plain, bold: plain };

/** The exit status a summary line announces, and why. */
export interface AuditExit {
  code: number;
  reason: string;
}

/** Options of `renderAuditText`. */
export interface RenderAuditTextOptions {
  /** @default NO_PAINT */
  paint?: Paint;
  /** @default 'error' */
  failOn?: Severity;
  /**
   * The exit status to announce when the caller knows more than the report: `panoptes audit` exits 2 when its
   * `--html` page cannot be written, and the summary line must say the status the process ends with.
   * @default the status `auditExitCode(report, failOn)` gives, with its reason
   */
  exit?: AuditExit;
}

/**
 * The readable audit report: per session its trace, a step table (message, state, method, confidence, evidence),
 * violations at their message, deviations, what the live monitor would have done (tool calls refused before they
 * ran, interventions on model calls), loops, the final verdicts; then the problems and a summary line. Every place is
 * named `messages[i]`, the 0-based index of a message in its transcript.
 * @returns lines, without trailing newlines.
 */
export function renderAuditText(report: AuditReport, { paint = NO_PAINT, failOn = DEFAULT_FAIL_ON, exit }: RenderAuditTextOptions = {}): string[] {
  const lines = [paint.bold(`Audit against ${report.workflow} ${report.workflowVersion} (embeddings: ${report.embeddings})`), ''];
  for (const session of report.sessions) lines.push(...renderSession(session, paint), '');
  if (report.problems.length > 0) {
    lines.push(paint.bold('Could not audit'));
    for (const problem of report.problems) lines.push(`  ${paint.red('✗')} ${problemLine(problem)}`);
    lines.push('');
  }
  lines.push(summaryLine(report, paint, exit ?? auditExit(report, failOn)));
  return lines;
}

/** `file.jsonl:4:17: session 'x': messages[2]: unknown role ...`: where first, so editors can jump to it. */
export function problemLine(problem: TranscriptProblem): string {
  const where = [problem.file, problem.line, problem.column].filter((part) => part !== undefined).join(':');
  // A .json file is one session named after the file; only a JSONL line needs its session named.
  const session = problem.session === undefined || problem.line === undefined ? '' : `session '${problem.session}': `;
  return `${where}: ${session}${problem.text}`;
}

/** How a report marks a message a live monitor would have kept from the user. */
export const WITHHELD = 'withheld before delivery';

function renderSession(session: SessionAudit, paint: Paint): string[] {
  const origin = session.line === undefined ? session.file : `${session.file}:${session.line}`;
  const status = session.note
    ? paint.dim(`- ${session.note}`)
    : session.violations.length === 0
      ? paint.green('✓ no violations')
      : paint.red(`✗ ${countLabel(session.violations.length, 'violation')} (${severityCounts(tally(session.violations))})`);
  const lines = [`${paint.bold(session.id)}  ${paint.dim(origin)}  ${status}`];
  lines.push(`  trace  ${session.trace.join(paint.dim(' → '))}`);
  if (session.steps.length > 0) lines.push(...stepTable(session, paint));
  if (session.violations.length > 0) {
    lines.push('  violations');
    const width = Math.max(...session.violations.map((violation) => violationLabel(violation).length));
    for (const violation of session.violations) {
      const withheld = violation.withheld ? `  ${paint.yellow(WITHHELD)}` : '';
      lines.push(`    ${paint.red('✗')} ${violationLabel(violation).padEnd(width)}  ${severityLabel(violation.severity, paint)}  ${violation.constraint} (${violation.type})${withheld}: ${violation.text}`);
    }
  }
  if (session.deviations.length > 0) {
    lines.push('  deviations (moves the workflow does not list)');
    for (const deviation of session.deviations) lines.push(`    ${paint.yellow('~')} ${messageLabel(deviation.message)}: ${deviation.from} → ${deviation.to}`);
  }
  const actions = liveActions(session);
  if (actions.length > 0) {
    lines.push('  what the live monitor would have done');
    for (const action of actions) lines.push(`    ${messageLabel(action.message)}: ${action.subject === undefined ? '' : `${action.subject} `}${action.phrase}`);
  }
  if (session.loops.length > 0) {
    lines.push('  loops');
    for (const loop of session.loops) lines.push(`    ${paint.yellow('↻')} ${messageLabel(loop.message)}: ${loop.kind} (${loop.action}): ${loop.detail}`);
  }
  if (session.warnings.length > 0) {
    lines.push('  warnings');
    for (const warning of session.warnings) lines.push(`    ${paint.yellow('!')} ${warning.text}`);
  }
  lines.push('  verdicts');
  for (const [constraint, verdict] of Object.entries(session.verdicts)) lines.push(`    ${verdictLabel(verdict, paint)}  ${constraint}`);
  return lines;
}

function stepTable(session: SessionAudit, paint: Paint): string[] {
  const stateWidth = Math.max(5, ...session.steps.map((step) => step.state.length));
  const labelWidth = Math.max('message'.length, ...session.steps.map((step) => messageLabel(step.message).length));
  const header = `  ${'message'.padEnd(labelWidth)}  ${'state'.padEnd(stateWidth)}  ${'method'.padEnd(9)}  conf  evidence`;
  const { violations } = stepMarks(session);
  const rows = session.steps.map((step, index) => {
    const violated = violations.has(index);
    const state = violated ? paint.red(step.state.padEnd(stateWidth)) : step.state.padEnd(stateWidth);
    const withheld = step.withheld ? `  ${paint.yellow(WITHHELD)}` : '';
    return `${violated ? paint.red('✗') : ' '} ${messageLabel(step.message).padEnd(labelWidth)}  ${state}  ${step.method.padEnd(9)}  ${step.confidence.toFixed(2)}  ${paint.dim(step.evidence)}${withheld}`;
  });
  return [paint.dim(header), ...rows];
}

function auditExit(report: AuditReport, failOn: Severity): AuditExit {
  const code = auditExitCode(report, failOn);
  const reason = code === 2 ? 'not everything could be read' : code === 1 ? `a violation of severity ${failOn} or worse` : `no violation of severity ${failOn} or worse`;
  return { code, reason };
}

function summaryLine(report: AuditReport, paint: Paint, { code, reason }: AuditExit): string {
  const { summary } = report;
  const clean = summary.sessions - summary.sessionsWithViolations;
  const violations = summary.sessionsWithViolations === 0 ? '' : ` (${severityCounts(summary.violations)})`;
  const misses = Object.entries(summary.misses).map(([cause, count]) => `${count} ${cause} failures`);
  const parts = [
    `${countLabel(summary.sessions, 'session')} in ${countLabel(summary.files, 'file')}: ${clean} clean, ${summary.sessionsWithViolations} with violations${violations}`,
    countLabel(summary.problems, 'unreadable file or session', 'unreadable files or sessions'),
    ...(summary.warnings > 0 ? [countLabel(summary.warnings, 'transcript warning')] : []),
    ...misses,
  ];
  const exit = `exit ${code}: ${reason}`;
  return `${parts.join('; ')}. ${code === 0 ? paint.green(exit) : paint.red(exit)}`;
}

/** `1 critical, 2 warning`: worst first, zeros left out. */
function severityCounts(counts: SeverityCounts): string {
  return [...SEVERITIES]
    .reverse()
    .filter((severity) => counts[severity] > 0)
    .map((severity) => `${counts[severity]} ${severity}`)
    .join(', ');
}

function tally(violations: ReadonlyArray<{ severity: Severity }>): SeverityCounts {
  const counts: SeverityCounts = { warning: 0, error: 0, critical: 0 };
  for (const { severity } of violations) counts[severity] += 1;
  return counts;
}

function severityLabel(severity: Severity, paint: Paint): string {
  const label = severity.padEnd(8);
  return severity === 'warning' ? paint.yellow(label) : paint.red(label);
}

function verdictLabel(verdict: Verdict, paint: Paint): string {
  if (verdict === 'satisfied') return paint.green('✓ satisfied');
  if (verdict === 'violated') return paint.red('✗ violated ');
  return paint.dim('… pending  ');
}

function countLabel(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
