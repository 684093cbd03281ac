import { describe, expect, it } from 'vitest';
import { verifyProgress } from '../../src/cli/verify/progress.js';
import { renderVerifyHtml } from '../../src/cli/verify/report-html.js';
import { summaryTable, VerifyTally } from '../../src/cli/verify/summary.js';

const usage = { inputTokens: 900, outputTokens: 100, costUsd: 0.0015, wallTimeMs: 1200 };

describe('verify summary', () => {
  it('counts each status per criterion, an unknown status in an "other" column, tokens, cost and run time', () => {
    const tally = new VerifyTally(['receipts', 'meals']);
    for (const status of ['met', 'met', 'not_met', 'paused', 'escalated']) tally.add({ criterionId: 'receipts', status, usage });
    tally.add({ criterionId: 'meals', status: 'uncertain', reasonCode: 'llm_error', usage });
    expect(summaryTable(tally)).toEqual([
      'criterion  met  not met  uncertain  paused  other  tokens     cost  run time',
      '---------  ---  -------  ---------  ------  -----  ------  -------  --------',
      'receipts     2        1          0       1      1   5,000  $0.0075     6.0 s',
      'meals        0        0          1       0      0   1,000  $0.0015     1.2 s',
      '---------  ---  -------  ---------  ------  -----  ------  -------  --------',
      'total        2        1          1       1      1   6,000  $0.0090     7.2 s',
    ]);
    expect(tally.total.failed).toBe(1);
  });

  it('has no "other" column when every status is known', () => {
    const tally = new VerifyTally(['a']);
    tally.add({ criterionId: 'a', status: 'met' });
    expect(summaryTable(tally)[0]).toBe('criterion  met  not met  uncertain  paused  tokens     cost  run time');
  });
});

describe('verify progress', () => {
  const stream = (isTTY: boolean) => {
    const written: string[] = [];
    return { written, isTTY, columns: 100, write: (text: string) => void written.push(text) };
  };

  it('redraws one bar in place on a terminal, at most ten times a second, and clears it', () => {
    let now = 0;
    const tty = stream(true);
    const tally = new VerifyTally(['a']);
    const progress = verifyProgress(tty, 40, tally, { resumed: 10, now: () => now });
    progress.start();
    for (let index = 0; index < 30; index++) {
      now += 20;
      tally.add({ criterionId: 'a', status: index % 3 ? 'met' : 'not_met' });
      progress.tick();
    }
    progress.finish();
    const draws = tty.written.filter((text) => text.startsWith('\r\u001b[2Kverify ['));
    expect(draws.length).toBeLessThan(12); // 600 ms of ticks: the start, about 6 redraws and the last
    expect(draws.at(-1)).toBe('\r\u001b[2Kverify [████████████████████████] 40/40 100% · met 20 · not met 10 · uncertain 0 · 600 ms');
    expect(draws[0]).toContain('10/40 25%');
    expect(tty.written.at(-1)).toBe('\r\u001b[2K');
    expect(draws.every((text) => text.length <= 5 + 99)).toBe(true);
  });

  it('writes a plain line per tenth of the job elsewhere, with the time left', () => {
    let now = 0;
    const pipe = stream(false);
    const tally = new VerifyTally(['a']);
    const progress = verifyProgress(pipe, 20, tally, { now: () => now });
    progress.start();
    for (let index = 0; index < 20; index++) {
      now += 100;
      tally.add({ criterionId: 'a', status: 'met' });
      progress.tick();
    }
    expect(pipe.written).toHaveLength(10);
    expect(pipe.written[0]).toBe('verify: 2/20 10% · met 2 · not met 0 · uncertain 0 · 200 ms · 1.8 s left\n');
    expect(pipe.written.at(-1)).toBe('verify: 20/20 100% · met 20 · not met 0 · uncertain 0 · 2.0 s\n');
  });
});

describe('verify HTML report', () => {
  it('escapes every string of the inputs, marks the quote in its section, and shows an unknown status as other', () => {
    const tally = new VerifyTally(['<c1>']);
    const results = [
      { caseId: 'A&1', criterionId: '<c1>', status: 'met', confidence: 0.9, rationale: '<img src=x onerror=alert(1)>', citations: [{ source: 'p.md', section: 'Policy > 2. <Receipts>', quote: 'receipts <b>required</b>' }], trace: [{ action: 'search_policy', arguments: { query: '"><script>' }, observation: '</details><script>x</script>' }] },
      { caseId: 'A&2', criterionId: '<c1>', status: 'escalated', detail: 'needs a <human>' },
    ];
    for (const result of results) tally.add(result);
    const html = renderVerifyHtml({
      title: 'Verification <of> claims',
      subtitle: 'from "x"',
      cases: [{ id: 'A&1', caseBundle: { note: '</pre><script>alert(1)</script>' } }, { id: 'A&2', caseBundle: {} }],
      criteria: [{ id: '<c1>', text: 'Receipts <b>required</b>.' }],
      chunks: [{ source: 'p.md', section: 'Policy > 2. <Receipts>', text: 'All RECEIPTS   <b>required</b> for taxis.', startLine: 4, endLine: 4 }],
      results,
      tally,
    });
    expect(html).not.toMatch(/<script|<img|<b>required|<human>|<c1>|<Receipts>|<\/details><script/);
    expect(html).toContain('<blockquote>All <mark>RECEIPTS   &lt;b&gt;required&lt;/b&gt;</mark> for taxis.</blockquote>');
    expect(html).toContain('<figcaption>p.md › Policy › 2. &lt;Receipts&gt; <span class="muted">line 4</span></figcaption>');
    expect(html).toContain('<a class="chip other" href="#v1-0">escalated</a>');
    expect(html).toContain('<b>1</b>other');
    expect(html).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
