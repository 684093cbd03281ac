import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'dist/src/cli/main.js');
const EXAMPLE = 'examples/verification/expenses';

/** The second domain of examples/verification: expense claims against a travel policy, through the built `panoptes verify`, offline. */
it('panoptes verify on the expense claims: every verdict with a verified citation or an honest uncertain, and a report', async () => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (\`npm test\` does).`);
  const folder = mkdtempSync(join(tmpdir(), 'panoptes-expenses-'));
  const out = join(folder, 'results.jsonl');
  const html = join(folder, 'report.html');
  const args = ['verify', '--policy', `${EXAMPLE}/travel-policy.md`, '--criteria', `${EXAMPLE}/criteria.yaml`, '--cases', `${EXAMPLE}/claims.jsonl`, '--scripted', `${EXAMPLE}/answers.json`, '--out', out, '--html', html];
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });

  type Line = { caseId: string; criterionId: string; status: string; reasonCode?: string; citations: Array<{ source: string; section?: string; quote: string }>; rejectedCitations: unknown[] };
  const results = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Line);
  const verdicts = Object.fromEntries(results.map((result) => [`${result.caseId} ${result.criterionId}`, `${result.status}${result.reasonCode ? ` (${result.reasonCode})` : ''}`]));
  expect(verdicts).toEqual({
    'EXP-1001 receipts': 'met', 'EXP-1001 airfare_class': 'met', 'EXP-1001 hotel_rate': 'met', 'EXP-1001 meals': 'met', 'EXP-1001 submitted_on_time': 'met',
    'EXP-1002 receipts': 'met', 'EXP-1002 airfare_class': 'not_met', 'EXP-1002 hotel_rate': 'not_met', 'EXP-1002 meals': 'met', 'EXP-1002 submitted_on_time': 'met',
    'EXP-1003 receipts': 'not_met', 'EXP-1003 airfare_class': 'met', 'EXP-1003 hotel_rate': 'met', 'EXP-1003 meals': 'not_met', 'EXP-1003 submitted_on_time': 'met',
    'EXP-1004 receipts': 'met', 'EXP-1004 airfare_class': 'met', 'EXP-1004 hotel_rate': 'met', 'EXP-1004 meals': 'met', 'EXP-1004 submitted_on_time': 'not_met',
    'EXP-1005 receipts': 'uncertain', 'EXP-1005 airfare_class': 'met', 'EXP-1005 hotel_rate': 'met', 'EXP-1005 meals': 'met', 'EXP-1005 submitted_on_time': 'met',
    // its quote is not in the policy: rejected, and the verdict with it
    'EXP-1006 receipts': 'met', 'EXP-1006 airfare_class': 'met', 'EXP-1006 hotel_rate': 'uncertain (unsupported)', 'EXP-1006 meals': 'met', 'EXP-1006 submitted_on_time': 'met',
  });
  // every met or not met rests on a verified citation naming the real section of the policy
  for (const result of results.filter((item) => item.status !== 'uncertain')) {
    expect(result.citations.length).toBeGreaterThan(0);
    for (const citation of result.citations) expect(citation.section).toMatch(/^Travel and Expense Policy > \d\. [A-Z]/);
  }
  expect(results.find((result) => result.caseId === 'EXP-1004' && result.criterionId === 'hotel_rate')!.citations).toEqual([
    { source: 'travel-policy.md', section: 'Travel and Expense Policy > 4. Lodging > 4.2 Exceptions', quote: 'A higher rate is reimbursed only when the manager approved it in writing before the stay' },
  ]);
  expect(results.flatMap((result) => result.rejectedCitations)).toHaveLength(1);

  expect(stdout).toMatch(/^receipts +4 +1 +1 +0 /m);
  expect(stdout).toMatch(/^total +23 +5 +2 +0 /m);
  expect(stdout).toContain(`wrote ${out}, ${html}`);

  const report = readFileSync(html, 'utf8');
  expect(report).not.toMatch(/<script|<b>Okafor/);
  expect(report).toContain('Team offsite, Austin &lt;script&gt;alert(&#39;report&#39;)&lt;/script&gt;');
  expect(report).toContain('<figcaption>travel-policy.md › Travel and Expense Policy › 4. Lodging › 4.2 Exceptions <span class="muted">line 37</span></figcaption><blockquote><mark>A higher rate is reimbursed only when the manager approved it in writing before the stay</mark>, for example during a conference when hotels near the venue are full.</blockquote>');
  expect(report).toContain('rejected: quote_not_found');
  expect(report.match(/<article class="verdict /g)).toHaveLength(30);
});
