/**
 * Provenance rules: extracting atoms from a 1 MB tool output (dense with addresses, links, IBANs and amounts, and
 * plain prose), recording each in a provenance log, and a guard decision on a sink argument when the session's provenance log holds 10,000 atoms.
 */
import { createFactStore, createProvenanceLog, createSentinel, extractAtoms, parseRulebase } from 'panoptes';
import { createFakeClock } from 'panoptes/testing';
import { measure, measureAsync, type BenchRow } from './harness.js';

const SUITE = 'provenance';
const MB = 1_048_576;

function oneMegabyte(line: (index: number) => string): string {
  let text = '';
  for (let index = 0; text.length < MB; index++) text += line(index);
  return text.slice(0, MB);
}

/** Runs the provenance benchmarks; `npm run bench -- provenance` runs only these. */
export async function provenanceBench(): Promise<BenchRow[]> {
  const dense = oneMegabyte((i) => `Invoice ${i}: pay $${i}.50 to US13300000012121212${String(i % 10000).padStart(4, '0')}, mail billing${i % 500}@example.com, see https://pay.example.com/i/${i}. `);
  const prose = oneMegabyte(() => 'The quarterly review found that the team delivered the roadmap on time and the customers were pleased with it. ');
  const rows: BenchRow[] = [];
  for (const [name, text] of [
    ['extract atoms from a 1 MB output dense with atoms', dense],
    ['extract atoms from a 1 MB output of prose', prose],
  ] as const) {
    const stats = measure(() => extractAtoms(text), { samples: 30, warmup: 5 });
    rows.push({ suite: SUITE, name, ...stats, extra: { atoms: extractAtoms(text).atoms.length }, target: 'a few ms (p50 <= 5 ms)', met: stats.p50Us <= 5_000 });
  }

  // What a tool result costs the session as a whole: its atoms, plus the text kept for values that are not atoms.
  for (const [name, text] of [
    ['record a 1 MB tool output dense with atoms in the provenance log', dense],
    ['record a 1 MB tool output of prose in the provenance log', prose],
  ] as const) {
    const stats = measure(() => createProvenanceLog().recordToolResult('read_file', text, () => 'untrusted'), { samples: 30, warmup: 5 });
    const log = createProvenanceLog();
    log.recordToolResult('read_file', text, () => 'untrusted');
    // The dense text gives more atoms than one result keeps: the rest is counted (`truncated`) and the log fails closed.
    rows.push({ suite: SUITE, name, ...stats, extra: { atoms: log.stats.occurrences, truncated: log.stats.truncated }, target: 'a few ms (p50 <= 4 ms)', met: stats.p50Us <= 4_000 });
  }

  const facts = createFactStore({ clock: createFakeClock() });
  const rulebase = parseRulebase(`
source read_file untrusted
sink send_money(recipient) payment
guard send_money :- not sink_from_untrusted.
guard send_money :- sink_from_untrusted, judged(request_covers_payee).
`);
  const sentinel = createSentinel({ rulebase, facts });
  // 100 documents of 100 distinct IBANs each: 10,000 atoms in the session.
  for (let doc = 0; doc < 100; doc++) {
    const ibans = Array.from({ length: 100 }, (_, i) => `DE${String(10 + (doc % 89)).padStart(2, '0')}${String(doc * 100 + i).padStart(18, '0')}`);
    sentinel.recordResult('read_file', { file_path: `doc${doc}` }, { ok: true, result: ibans.join('\n') });
  }
  facts.noteUserWords(['Pay GB29NWBK60161331926819 please.']);
  const atoms = facts.provenance.stats.occurrences;
  for (const [name, recipient, expected] of [
    ['decision on a payee the user gave, 10,000 atoms in the session (allowed)', 'GB29NWBK60161331926819', true],
    ['decision on a payee a document gave, 10,000 atoms in the session (held, explained)', 'DE10000000000000000000', false],
  ] as const) {
    if ((await sentinel.check('send_money', { recipient, amount: 1 })).allowed !== expected) throw new Error(`bench setup: ${name}`);
    const stats = await measureAsync(() => sentinel.check('send_money', { recipient, amount: 1 }), { samples: 2000, warmup: 2000 });
    rows.push({ suite: SUITE, name, ...stats, extra: { atoms }, target: 'p99 <= 1 ms', met: stats.p99Us <= 1_000 });
  }
  return rows;
}
