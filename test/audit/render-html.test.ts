import { beforeAll, describe, expect, it } from 'vitest';
import { auditTranscripts, escapeHtml, renderAuditHtml, type AuditReport } from '../../src/audit/index.js';
import { quietLogger, ROOT, supportWorkflow } from './helpers.js';

let html: string;
let report: AuditReport;
beforeAll(async () => {
  const files = [`${ROOT}examples/transcripts/refund-skipped-verification.json`, `${ROOT}examples/transcripts/support-sessions.jsonl`, `${ROOT}test/fixtures/transcripts/script-injection.jsonl`, `${ROOT}test/fixtures/transcripts/not-json.json`];
  report = await auditTranscripts({ workflow: await supportWorkflow(), files, logger: quietLogger() });
  html = renderAuditHtml(report);
});

describe('renderAuditHtml', () => {
  it('is one self-contained page: inline CSS, no scripts of its own, no external resources', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|<link|src="http|href="http|@import|url\(/i);
  });

  it('escapes every transcript-derived string', () => {
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>friend</b>');
    expect(html).toContain('&lt;img src=x onerror=alert(&#39;id&#39;)&gt;'); // the session id
    expect(html).toContain('Hello &lt;b&gt;friend&lt;/b&gt; &amp; welcome! &lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;'); // the excerpt
    expect(html).toContain('&lt;i&gt;broken'); // the warning quoting the bad arguments
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('marks a violation at its message in the timeline and links to it from the table', () => {
    expect(html).toMatch(/<div class="chip violated critical" id="s1-m4"[^>]*>.*<span class="marker">✗ verify_before_account_action<\/span>/);
    expect(html).toContain('<a href="#s1-m4">messages[4]</a>');
    expect(html).toContain('<span class="marker deviation">↷ not a listed transition</span>');
  });

  it('marks a violation found at close on the closing chip', () => {
    expect(html).toMatch(/<div class="chip close violated warning" id="s2-close">.*<span class="marker">✗ must_resolve<\/span>/);
    expect(html).toContain('<a href="#s2-close">at the end</a>');
    expect(html).not.toMatch(/trace position|step \d|msg \d/);
  });

  it('shows verdicts, the summary and what could not be read', () => {
    expect(html).toContain('<span class="badge violated">✗ verify_before_account_action</span>');
    expect(html).toContain('<span class="badge satisfied">✓ no_internal_info</span>');
    expect(html).toContain('<h2>Could not audit</h2>');
    expect(html).toContain('not-json.json:4:3: not JSON');
    expect(html).toMatch(/<div class="stat bad"><b>2<\/b>exit code<\/div>/);
  });
});
