import { SEVERITIES, type Severity } from '../workflow/index.js';
import { auditExitCode, DEFAULT_FAIL_ON } from './exit-code.js';
import { REPORT_CSS, STATE_PALETTE } from './html-style.js';
import { liveActions, messageLabel, stepMarks, violationLabel } from './places.js';
import { problemLine, WITHHELD } from './render-text.js';
import type { AuditReport, AuditStep, AuditViolation, SessionAudit } from './types.js';

/**
 * A self-contained HTML report: inline CSS, no scripts, no external resources. Per session a timeline of state
 * chips (violations marked at their message, or on a closing chip when the end of the conversation found them), the
 * violations table, deviations, what the live monitor would have done, and verdicts, and the steps in a `<details>`
 * block. Places are named `messages[i]`, as in the text report. Every transcript-derived string is escaped.
 */
export function renderAuditHtml(report: AuditReport, { failOn = DEFAULT_FAIL_ON, title }: { failOn?: Severity; title?: string } = {}): string {
  const heading = title ?? `Audit: ${report.workflow} ${report.workflowVersion}`;
  const colour = (state: string) => STATE_PALETTE[Math.max(0, report.states.indexOf(state)) % STATE_PALETTE.length]!;
  const body = [
    `<h1>${escapeHtml(heading)}</h1>`,
    `<div class="muted">Embeddings: ${escapeHtml(report.embeddings)} · fails on ${escapeHtml(failOn)} or worse · messages[i] is the 0-based index of a message in its transcript</div>`,
    summary(report, failOn),
    problems(report),
    ...report.sessions.map((session, index) => sessionSection(session, `s${index + 1}`, colour)),
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(heading)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function summary(report: AuditReport, failOn: Severity): string {
  const { summary: totals } = report;
  const code = auditExitCode(report, failOn);
  const stat = (label: string, value: number | string, tone: string, detail = '') =>
    `<div class="stat ${tone}"><b>${escapeHtml(String(value))}</b>${escapeHtml(label)}${detail ? `<span class="detail">${escapeHtml(detail)}</span>` : ''}</div>`;
  const counts = [...SEVERITIES]
    .reverse()
    .filter((severity) => totals.violations[severity] > 0)
    .map((severity) => `${totals.violations[severity]} ${severity}`)
    .join(' · ');
  return `<div class="summary">
${stat('sessions', totals.sessions, '')}
${stat('clean', totals.sessions - totals.sessionsWithViolations, 'good')}
${stat('with violations', totals.sessionsWithViolations, totals.sessionsWithViolations > 0 ? 'bad' : '', counts && `violations: ${counts}`)}
${stat('unreadable', totals.problems, totals.problems > 0 ? 'bad' : '')}
${stat('exit code', code, code === 0 ? 'good' : 'bad')}
</div>`;
}

function problems(report: AuditReport): string {
  if (report.problems.length === 0) return '';
  const items = report.problems.map((problem) => `<li class="mono">${escapeHtml(problemLine(problem))}</li>`).join('\n');
  return `<section class="session failed"><h2>Could not audit</h2><ul class="plain">${items}</ul></section>`;
}

function sessionSection(session: SessionAudit, anchor: string, colour: (state: string) => string): string {
  const origin = session.line === undefined ? session.file : `${session.file}:${session.line}`;
  const worst = worstSeverity(session.violations);
  const tone = worst === undefined ? 'clean' : worst === 'warning' ? 'warned' : 'failed';
  const status = session.note
    ? `<span class="badge note">${escapeHtml(session.note)}</span>`
    : worst === undefined
      ? '<span class="badge ok">no violations</span>'
      : `<span class="badge ${worst}">${session.violations.length} violation${session.violations.length === 1 ? '' : 's'}</span>`;
  return `<section class="session ${tone}" id="${anchor}">
<header><h2>${escapeHtml(session.id)}</h2><span class="muted mono">${escapeHtml(origin)}</span>${status}</header>
<h3>Timeline</h3>
${timeline(session, anchor, colour)}
${violationTable(session, anchor)}
${deviationList(session)}
${liveActionList(session)}${loopList(session)}
${warningList(session)}
<h3>Verdicts</h3>
<div class="verdicts">${Object.entries(session.verdicts)
    .map(([constraint, verdict]) => `<span class="badge ${verdict}">${verdict === 'satisfied' ? '✓' : verdict === 'violated' ? '✗' : '…'} ${escapeHtml(constraint)}</span>`)
    .join(' ')}</div>
${stepDetails(session)}
</section>`;
}

function timeline(session: SessionAudit, anchor: string, colour: (state: string) => string): string {
  const marks = stepMarks(session);
  const initial = session.trace[0] ?? '';
  const chips = [`<div class="chip initial" style="background:${colour(initial)}"><span class="state">${escapeHtml(initial)}</span><span class="meta">start</span></div>`];
  session.steps.forEach((step, index) => {
    const violations = marks.violations.get(index) ?? [];
    const classes = violations.length > 0 ? `chip violated ${worstSeverity(violations)}` : 'chip';
    const markers = [
      ...violations.map((violation) => `<span class="marker">✗ ${escapeHtml(violation.constraint)}</span>`),
      ...(marks.deviated.has(index) ? ['<span class="marker deviation">↷ not a listed transition</span>'] : []),
      ...(step.withheld ? [`<span class="marker withheld">⊘ ${WITHHELD}</span>`] : []),
    ].join('');
    const title = `${step.evidence} · ${step.excerpt}`;
    // A message with several tool calls has several chips; the first carries the message's anchor.
    const id = session.steps[index - 1]?.message === step.message ? '' : ` id="${anchor}-m${step.message}"`;
    chips.push(
      `<div class="${classes}"${id} title="${escapeHtml(title)}" style="background:${colour(step.state)}"><span class="state">${escapeHtml(step.state)}</span><span class="meta">${messageLabel(step.message)} · ${escapeHtml(step.method)} ${step.confidence.toFixed(2)}</span>${markers}</div>`,
    );
  });
  const atClose = session.violations.filter((violation) => violation.atClose);
  if (!session.note) {
    const markers = atClose.map((violation) => `<span class="marker">✗ ${escapeHtml(violation.constraint)}</span>`).join('');
    chips.push(`<div class="chip close${atClose.length > 0 ? ` violated ${worstSeverity(atClose)}` : ''}" id="${anchor}-close"><span class="state">end</span><span class="meta">trace closed</span>${markers}</div>`);
  }
  // Each arrow travels with the chip after it, so a wrapped row never ends on a dangling arrow.
  const [first, ...rest] = chips;
  return `<div class="timeline">${first}${rest.map((chip) => `<div class="hop"><span class="arrow">→</span>${chip}</div>`).join('')}</div>`;
}

function violationTable(session: SessionAudit, anchor: string): string {
  if (session.violations.length === 0) return '';
  const rows = session.violations.map((violation: AuditViolation) => {
    const target = violation.atClose ? `${anchor}-close` : `${anchor}-m${violation.message}`;
    return `<tr class="violated"><td class="step"><a href="#${target}">${violationLabel(violation)}</a></td><td><span class="badge ${violation.severity}">${escapeHtml(violation.severity)}</span></td><td class="mono">${escapeHtml(violation.constraint)}</td><td>${escapeHtml(violation.type)}</td><td>${violation.withheld ? `<strong>${WITHHELD}:</strong> ` : ''}${escapeHtml(violation.text)}</td></tr>`;
  });
  return `<h3>Violations</h3><table><thead><tr><th>message</th><th>severity</th><th>constraint</th><th>type</th><th>what happened</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function deviationList(session: SessionAudit): string {
  if (session.deviations.length === 0) return '';
  const items = session.deviations.map((deviation) => `<li>${messageLabel(deviation.message)}: <code>${escapeHtml(deviation.from)}</code> → <code>${escapeHtml(deviation.to)}</code></li>`);
  return `<h3>Deviations (moves the workflow does not list)</h3><ul class="plain">${items.join('')}</ul>`;
}

function liveActionList(session: SessionAudit): string {
  const actions = liveActions(session);
  if (actions.length === 0) return '';
  const items = actions.map(({ message, subject, phrase }) => `<li>${messageLabel(message)}: ${subject === undefined ? '' : `<code>${escapeHtml(subject)}</code> `}${escapeHtml(phrase)}</li>`);
  return `<h3>What the live monitor would have done</h3><ul class="plain">${items.join('')}</ul>`;
}

function loopList(session: SessionAudit): string {
  if (session.loops.length === 0) return '';
  const items = session.loops.map((loop) => `<li>${messageLabel(loop.message)}: <code>${escapeHtml(loop.kind)}</code> (${escapeHtml(loop.action)}): ${escapeHtml(loop.detail)}</li>`);
  return `<h3>Loops</h3><ul class="plain">${items.join('')}</ul>`;
}

function warningList(session: SessionAudit): string {
  if (session.warnings.length === 0) return '';
  return `<h3>Transcript warnings</h3><ul class="plain">${session.warnings.map((warning) => `<li>${escapeHtml(warning.text)}</li>`).join('')}</ul>`;
}

function stepDetails(session: SessionAudit): string {
  if (session.steps.length === 0) return '';
  const { violations } = stepMarks(session);
  const rows = session.steps.map(
    (step: AuditStep, index) =>
      `<tr${violations.has(index) ? ' class="violated"' : ''}><td class="mono">${messageLabel(step.message)}</td><td class="mono">${escapeHtml(step.state)}</td><td>${escapeHtml(step.method)}</td><td class="num">${step.confidence.toFixed(2)}</td><td class="mono">${escapeHtml(step.evidence)}</td><td class="excerpt">${escapeHtml(step.excerpt)}</td></tr>`,
  );
  // Open where there is something to look at; a clean session keeps its details folded.
  return `<details${session.violations.length > 0 ? ' open' : ''}><summary>Steps in detail (${session.steps.length})</summary><table><thead><tr><th>message</th><th>state</th><th>method</th><th>conf</th><th>evidence</th><th>assistant said</th></tr></thead><tbody>${rows.join('')}</tbody></table></details>`;
}

function worstSeverity(violations: readonly AuditViolation[]): Severity | undefined {
  return [...SEVERITIES].reverse().find((severity) => violations.some((violation) => violation.severity === severity));
}
