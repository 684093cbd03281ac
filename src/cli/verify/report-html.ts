import { escapeHtml } from '../../audit/index.js';
import { findQuoteSpan, type PolicyChunk } from '../../react/index.js';
import { formatDuration, KNOWN_STATUSES, type VerifyTally } from './summary.js';

/** A result line as the report reads it; every field but the ids and the status may be missing. */
export interface ReportResult {
  caseId: string;
  criterionId: string;
  status: string;
  confidence?: number;
  citations?: Array<{ source?: string; section?: string; quote?: string }>;
  rejectedCitations?: Array<{ source?: string; section?: string; quote?: string; reason?: string }>;
  rationale?: string;
  reasonCode?: string;
  detail?: string;
  trace?: Array<{ thought?: string; action?: string | null; arguments?: unknown; observation?: string; cached?: boolean; error?: boolean }>;
  usage?: { iterations?: number; inputTokens?: number; outputTokens?: number; costUsd?: number; wallTimeMs?: number };
  model?: string;
}

/** What the report is about. */
export interface VerifyReportInput {
  title: string;
  /** One line under the title: the files, the model. */
  subtitle: string;
  cases: ReadonlyArray<{ id: string; caseBundle: Record<string, unknown> }>;
  criteria: ReadonlyArray<{ id: string; text: string }>;
  /** The policy's chunks, to show each citation in its section. */
  chunks: readonly PolicyChunk[];
  results: readonly ReportResult[];
  tally: VerifyTally;
}

/**
 * A self-contained HTML report of a verify job, for a reviewer: the summary per criterion, a grid of every case's
 * verdicts, then each verdict with its rationale and each citation shown in its policy section with the quoted
 * words highlighted. No scripts, no external resources; every string from the inputs (cases, policy, model output)
 * is escaped.
 */
export function renderVerifyHtml(input: VerifyReportInput): string {
  const byPair = new Map<string, ReportResult>();
  for (const result of input.results) byPair.set(pairKey(result.caseId, result.criterionId), result);
  const caseIds = new Set(input.cases.map((item) => item.id));
  const criterionIds = new Set(input.criteria.map((criterion) => criterion.id));
  const strays = input.results.filter((result) => !caseIds.has(result.caseId) || !criterionIds.has(result.criterionId));
  const body = [
    `<h1>${escapeHtml(input.title)}</h1>`,
    `<div class="muted">${escapeHtml(input.subtitle)}</div>`,
    summary(input.tally),
    grid(input, byPair),
    ...input.cases.map((item, index) => caseSection(item, index, input, byPair)),
    strays.length > 0 ? `<section class="case"><h2>Results for cases or criteria not in this job</h2>${strays.map((result) => verdict(result, undefined, input.chunks, '')).join('\n')}</section>` : '',
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
<style>${CSS}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function pairKey(caseId: string, criterionId: string): string {
  return `${caseId}\u0000${criterionId}`;
}

function statusClass(status: string): string {
  return (KNOWN_STATUSES as readonly string[]).includes(status) ? status : 'other';
}

function summary(tally: VerifyTally): string {
  const other = tally.total.other > 0;
  const head = ['criterion', 'met', 'not met', 'uncertain', 'paused', ...(other ? ['other'] : []), 'tokens', 'cost', 'run time'];
  const row = (name: string, counts: VerifyTally['total'], tag = 'td') =>
    `<tr><${tag}>${escapeHtml(name)}</${tag}>${KNOWN_STATUSES.map((status) => `<td class="num">${counts.statuses[status] ?? 0}</td>`).join('')}${other ? `<td class="num">${counts.other}</td>` : ''}<td class="num">${counts.tokens.toLocaleString('en-US')}</td><td class="num">$${counts.costUsd.toFixed(4)}</td><td class="num">${escapeHtml(formatDuration(counts.runMs))}</td></tr>`;
  const stat = (label: string, value: number, tone: string) => `<div class="stat ${tone}"><b>${value}</b>${escapeHtml(label)}</div>`;
  return `<div class="summary">
${stat('verdicts', tally.total.results, '')}
${stat('met', tally.total.statuses.met ?? 0, 'met')}
${stat('not met', tally.total.statuses.not_met ?? 0, 'not_met')}
${stat('uncertain', tally.total.statuses.uncertain ?? 0, 'uncertain')}
${stat('paused', tally.total.statuses.paused ?? 0, 'paused')}
${other ? stat('other', tally.total.other, 'other') : ''}
</div>
<table class="totals"><thead><tr>${head.map((cell, index) => `<th${index > 0 ? ' class="num"' : ''}>${cell}</th>`).join('')}</tr></thead><tbody>
${[...tally.byCriterion].map(([id, counts]) => row(id, counts)).join('\n')}
${row('total', tally.total, 'th')}
</tbody></table>`;
}

/** Every case's verdicts at a glance, each linking to its details. */
function grid(input: VerifyReportInput, byPair: Map<string, ReportResult>): string {
  const head = input.criteria.map((criterion) => `<th title="${escapeHtml(criterion.text)}">${escapeHtml(criterion.id)}</th>`).join('');
  const rows = input.cases.map((item, caseIndex) => {
    const cells = input.criteria.map((criterion, criterionIndex) => {
      const result = byPair.get(pairKey(item.id, criterion.id));
      if (!result) return '<td><span class="chip missing">not run</span></td>';
      return `<td><a class="chip ${statusClass(result.status)}" href="#v${caseIndex}-${criterionIndex}">${escapeHtml(result.status.replace('_', ' '))}</a></td>`;
    });
    return `<tr><th><a href="#c${caseIndex}">${escapeHtml(item.id)}</a></th>${cells.join('')}</tr>`;
  });
  return `<h3>Verdicts</h3><table class="grid"><thead><tr><th>case</th>${head}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}

function caseSection(item: { id: string; caseBundle: Record<string, unknown> }, caseIndex: number, input: VerifyReportInput, byPair: Map<string, ReportResult>): string {
  const verdicts = input.criteria.map((criterion, criterionIndex) => {
    const result = byPair.get(pairKey(item.id, criterion.id));
    const anchor = `v${caseIndex}-${criterionIndex}`;
    if (!result) return `<article class="verdict missing" id="${anchor}"><header><b>${escapeHtml(criterion.id)}</b><span class="badge missing">not run</span></header><p class="criterion">${escapeHtml(criterion.text)}</p></article>`;
    return verdict(result, criterion, input.chunks, anchor);
  });
  return `<section class="case" id="c${caseIndex}">
<header><h2>${escapeHtml(item.id)}</h2></header>
<details><summary>case fields</summary><pre>${escapeHtml(JSON.stringify(item.caseBundle, null, 2))}</pre></details>
${verdicts.join('\n')}
</section>`;
}

function verdict(result: ReportResult, criterion: { id: string; text: string } | undefined, chunks: readonly PolicyChunk[], anchor: string): string {
  const tone = statusClass(result.status);
  const facts = [
    typeof result.confidence === 'number' ? `confidence ${result.confidence}` : '',
    result.reasonCode ? `reason: ${result.reasonCode}` : '',
    result.usage ? `${result.usage.iterations ?? 0} model calls · ${((result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0)).toLocaleString('en-US')} tokens · ${formatDuration(result.usage.wallTimeMs ?? 0)}` : '',
  ].filter(Boolean);
  const citations = (result.citations ?? []).map((citation) => citationBlock(citation, chunks));
  const rejected = (result.rejectedCitations ?? []).map((citation) => `<li><span class="badge not_met">rejected: ${escapeHtml(String(citation.reason ?? ''))}</span> ${escapeHtml(String(citation.source ?? ''))}${citation.section ? ` › ${escapeHtml(citation.section)}` : ''}: <q>${escapeHtml(String(citation.quote ?? ''))}</q></li>`);
  const trace = (result.trace ?? []).map((step) => `<li><code>${escapeHtml(String(step.action ?? 'no tool'))}</code>${step.cached ? ' <span class="muted">(cached)</span>' : ''}${step.error ? ' <span class="badge not_met">refused or failed</span>' : ''} <span class="mono args">${escapeHtml(JSON.stringify(step.arguments ?? {}))}</span>${step.thought ? `<div class="muted">${escapeHtml(step.thought)}</div>` : ''}<div class="observation">${escapeHtml(String(step.observation ?? ''))}</div></li>`);
  return `<article class="verdict ${tone}"${anchor ? ` id="${anchor}"` : ''}>
<header><b>${escapeHtml(result.criterionId)}</b><span class="badge ${tone}">${escapeHtml(result.status.replace('_', ' '))}</span><span class="muted">${escapeHtml(facts.join(' · '))}</span>${criterion ? '' : `<span class="muted">case ${escapeHtml(result.caseId)}</span>`}</header>
${criterion ? `<p class="criterion">${escapeHtml(criterion.text)}</p>` : ''}
${result.rationale ? `<p class="rationale">${escapeHtml(result.rationale)}</p>` : ''}
${result.detail ? `<p class="detail">${escapeHtml(result.detail)}</p>` : ''}
${citations.join('\n')}
${rejected.length > 0 ? `<ul class="plain">${rejected.join('')}</ul>` : ''}
${trace.length > 0 ? `<details><summary>trace: ${trace.length} step${trace.length === 1 ? '' : 's'}</summary><ol class="trace">${trace.join('')}</ol></details>` : ''}
</article>`;
}

/** A citation in its policy section, the quoted words marked; a quote not found in the policy shown as given. */
function citationBlock(citation: { source?: string; section?: string; quote?: string }, chunks: readonly PolicyChunk[]): string {
  const quote = String(citation.quote ?? '');
  const found = locate(citation, chunks);
  if (!found) {
    return `<figure class="citation"><figcaption>${escapeHtml(String(citation.source ?? ''))}${citation.section ? ` › ${escapeHtml(citation.section)}` : ''} <span class="muted">(not located in the policy files)</span></figcaption><blockquote><mark>${escapeHtml(quote)}</mark></blockquote></figure>`;
  }
  const { chunk, span } = found;
  const where = `${chunk.source}${chunk.section ? ` › ${chunk.section.replaceAll(' > ', ' › ')}` : ''}`;
  const lines = chunk.startLine === chunk.endLine ? `line ${chunk.startLine}` : `lines ${chunk.startLine}-${chunk.endLine}`;
  const text = `${escapeHtml(chunk.text.slice(0, span.start))}<mark>${escapeHtml(chunk.text.slice(span.start, span.end))}</mark>${escapeHtml(chunk.text.slice(span.end))}`;
  return `<figure class="citation"><figcaption>${escapeHtml(where)} <span class="muted">${lines}</span></figcaption><blockquote>${text}</blockquote></figure>`;
}

/** The chunk that holds the quote: of the section the citation names first, then of its source, then any. */
function locate(citation: { source?: string; section?: string; quote?: string }, chunks: readonly PolicyChunk[]): { chunk: PolicyChunk; span: { start: number; end: number } } | undefined {
  const quote = String(citation.quote ?? '');
  const tiers = [chunks.filter((chunk) => chunk.source === citation.source && chunk.section === citation.section), chunks.filter((chunk) => chunk.source === citation.source), chunks];
  for (const tier of tiers) {
    for (const chunk of tier) {
      const span = findQuoteSpan(chunk.text, quote);
      if (span) return { chunk, span };
    }
  }
  return undefined;
}

const CSS = `
:root { color-scheme: light; --red: #b91c1c; --red-bg: #fee2e2; --amber: #92400e; --amber-bg: #fef3c7; --green: #166534; --green-bg: #dcfce7; --blue: #1e40af; --blue-bg: #dbeafe; --muted: #64748b; --line: #e2e8f0; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #0f172a; background: #f8fafc; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0; overflow-wrap: anywhere; }
h3 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 22px 0 6px; }
code, .mono, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f1f5f9; padding: 8px 10px; border-radius: 6px; }
.muted { color: var(--muted); }
.summary { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0 16px; }
.stat { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 110px; }
.stat b { display: block; font-size: 22px; }
.stat.met b { color: var(--green); } .stat.not_met b { color: var(--red); } .stat.uncertain b { color: var(--amber); } .stat.paused b, .stat.other b { color: var(--blue); }
table { border-collapse: collapse; background: #fff; }
table.totals { min-width: 640px; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.grid td, table.grid th { padding: 4px 8px; }
table.grid tbody th a { color: #0f172a; font-weight: 600; }
.chip, .badge { display: inline-block; border-radius: 999px; padding: 1px 10px; font-size: 12px; font-weight: 600; text-decoration: none; white-space: nowrap; }
.met { --tone: var(--green); --tone-bg: var(--green-bg); } .not_met { --tone: var(--red); --tone-bg: var(--red-bg); } .uncertain { --tone: var(--amber); --tone-bg: var(--amber-bg); } .paused, .other { --tone: var(--blue); --tone-bg: var(--blue-bg); } .missing { --tone: var(--muted); --tone-bg: #f1f5f9; }
.chip, .badge { color: var(--tone); background: var(--tone-bg); }
.case { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; margin: 20px 0; }
.case > details summary { margin: 6px 0; }
.verdict { border-left: 4px solid var(--tone); padding: 6px 0 6px 14px; margin: 14px 0; }
.verdict header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 10px; }
.criterion { color: #334155; font-style: italic; margin: 4px 0; }
.rationale { margin: 6px 0; }
.detail { color: var(--muted); margin: 4px 0; overflow-wrap: anywhere; }
figure.citation { margin: 8px 0; }
figcaption { font-size: 12px; font-weight: 600; color: #334155; }
blockquote { margin: 4px 0 0; padding: 8px 12px; background: #f8fafc; border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
mark { background: #fde68a; padding: 0 1px; border-radius: 2px; }
details summary { cursor: pointer; color: var(--muted); }
ol.trace { margin: 6px 0; padding-left: 22px; }
ol.trace li { margin: 4px 0; }
.args { color: #475569; overflow-wrap: anywhere; }
.observation { color: #334155; font-size: 12.5px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 9em; overflow: auto; }
ul.plain { margin: 4px 0; padding-left: 18px; }
`;
