import { beforeAll, describe, expect, it } from 'vitest';
import { auditTranscripts, NO_PAINT, problemLine, renderAuditText, type AuditReport } from '../../src/audit/index.js';
import { quietLogger, ROOT, supportWorkflow } from './helpers.js';

let report: AuditReport;
beforeAll(async () => {
  const files = ['refund-skipped-verification.json', 'support-sessions.jsonl'].map((name) => `${ROOT}examples/transcripts/${name}`);
  report = await auditTranscripts({ workflow: await supportWorkflow(), files: [...files, `${ROOT}test/fixtures/transcripts/unknown-role.json`], logger: quietLogger() });
});

describe('renderAuditText', () => {
  it('shows the trace, the step table with the violating message marked, the violation, deviation, refusal and verdicts, numbered by message', () => {
    const lines = renderAuditText(report);
    const text = lines.join('\n');
    expect(lines[0]).toBe('Audit against customer-support 1.0 (embeddings: none)');
    expect(text).toContain('refund-skipped-verification');
    expect(text).toContain('✗ 1 violation (1 critical)');
    expect(text).toContain('  trace  greeting → identify_issue → account_action → resolution');
    expect(lines).toContain('✗ messages[4]  account_action  tool_call  1.00  tool issue_refund');
    expect(text).toContain("    ✗ messages[4]  critical  verify_before_account_action (precedence): Entered 'account_action' at messages[4] before any of 'verify_identity'.");
    expect(lines).toContain('    ~ messages[4]: identify_issue → account_action');
    expect(lines).toContain('    messages[4]: issue_refund would have been refused before it ran (verify_before_account_action, critical)');
    expect(lines).toContain('    messages[6]: verify_first would have been applied before the model wrote it (system-prompt-append)');
    expect(lines).toContain('    ✗ violated   verify_before_account_action');
    expect(text).toContain("    ✗ at the end  warning   must_resolve (eventually): The session ended without reaching 'resolution'.");
    expect(text).not.toMatch(/trace position|step \d|msg \d/);
  });

  it('lists what could not be read, and ends with the summary and the exit code', () => {
    const lines = renderAuditText(report);
    expect(lines).toContain(`  ✗ ${ROOT}test/fixtures/transcripts/unknown-role.json: messages[1]: unknown role 'bot'; valid roles: system, developer, user, assistant, tool`);
    expect(lines.at(-1)).toBe('3 sessions in 3 files: 1 clean, 2 with violations (1 critical, 1 warning); 1 unreadable file or session. exit 2: not everything could be read');
  });

  it('announces the exit status its caller gives, when the caller knows more than the report (issue 13, item 7)', () => {
    const lines = renderAuditText(report, { exit: { code: 2, reason: 'the HTML report could not be written' } });
    expect(lines.at(-1)).toMatch(/\. exit 2: the HTML report could not be written$/);
  });

  it('uses the paint it is given, and none by default', () => {
    expect(renderAuditText(report).join('')).not.toMatch(/\u001b\[/);
    const tagged = renderAuditText(report, { paint: { ...NO_PAINT, red: (text) => `<r>${text}</r>` } });
    expect(tagged.join('\n')).toContain('<r>critical');
  });

  it('puts a problem\'s place first, and names the session only for a JSONL line', () => {
    expect(problemLine({ file: 'a.jsonl', line: 4, column: 2, text: 'not JSON: x' })).toBe('a.jsonl:4:2: not JSON: x');
    expect(problemLine({ file: 'a.jsonl', line: 4, session: 's', text: 'messages[0]: y' })).toBe("a.jsonl:4: session 's': messages[0]: y");
    expect(problemLine({ file: 'a.json', session: 'a', text: 'messages[0]: y' })).toBe('a.json: messages[0]: y');
  });
});
