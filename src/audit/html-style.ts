/**
 * Colours for state chips, in the workflow's state order; chosen to stay distinct from the red of violations and
 * readable with dark text.
 */
export const STATE_PALETTE = ['#dbeafe', '#dcfce7', '#fef9c3', '#ede9fe', '#cffafe', '#fce7f3', '#e0e7ff', '#f3e8d5', '#d1fae5', '#f1f5f9'];

/** The report's whole stylesheet, inlined: the file must open anywhere, offline, with no other resource. */
export const REPORT_CSS = `
:root { color-scheme: light; --red: #b91c1c; --red-bg: #fee2e2; --amber: #92400e; --amber-bg: #fef3c7; --green: #166534; --green-bg: #dcfce7; --muted: #64748b; --line: #e2e8f0; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #0f172a; background: #f8fafc; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0; word-break: break-all; }
h3 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 18px 0 6px; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
.muted { color: var(--muted); }
.summary { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0 24px; }
.stat { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 130px; }
.stat b { display: block; font-size: 22px; }
.stat .detail { display: block; font-size: 12px; color: var(--muted); }
.stat.bad b { color: var(--red); } .stat.good b { color: var(--green); } .stat.warn b { color: var(--amber); }
.session { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 16px 20px; margin: 0 0 20px; }
.session.failed { border-left: 5px solid var(--red); } .session.clean { border-left: 5px solid #22c55e; } .session.warned { border-left: 5px solid #f59e0b; }
.session header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 12px; }
.badge { display: inline-block; border-radius: 999px; padding: 1px 10px; font-size: 12px; font-weight: 600; }
.badge.critical, .badge.error, .badge.violated { background: var(--red-bg); color: var(--red); }
.badge.warning { background: var(--amber-bg); color: var(--amber); }
.badge.ok, .badge.satisfied { background: var(--green-bg); color: var(--green); }
.badge.pending, .badge.note { background: #f1f5f9; color: var(--muted); }
.timeline { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 8px 0; margin-top: 6px; }
.hop { display: flex; align-items: flex-start; }
.arrow { color: #94a3b8; padding: 10px 6px 0; }
.chip { border: 1px solid rgba(15, 23, 42, .15); border-radius: 8px; padding: 5px 10px; min-width: 92px; }
.chip .state { font-weight: 600; display: block; }
.chip .meta { font-size: 11px; color: #475569; display: block; }
.chip.initial { border-style: dashed; background: #fff; }
.chip.close { background: #fff; border-style: dashed; color: var(--muted); }
.chip.violated { border: 2px solid var(--red); box-shadow: 0 0 0 3px var(--red-bg); }
.marker { display: block; margin-top: 4px; font-size: 11px; font-weight: 700; color: var(--red); }
.chip.violated.warning { border-color: #d97706; box-shadow: 0 0 0 3px var(--amber-bg); }
.chip.violated.warning .marker:not(.deviation) { color: var(--amber); }
.marker.deviation { color: var(--amber); font-weight: 600; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.step { white-space: nowrap; font-variant-numeric: tabular-nums; }
tr.violated td { background: #fff5f5; }
.verdicts { display: flex; flex-wrap: wrap; gap: 6px; }
details summary { cursor: pointer; color: var(--muted); margin-top: 14px; }
.excerpt { color: #334155; max-width: 560px; overflow-wrap: anywhere; }
ul.plain { margin: 4px 0; padding-left: 18px; }
a { color: inherit; }
`;
