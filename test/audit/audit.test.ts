import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditExitCode, auditTranscripts, type AuditReport } from '../../src/audit/index.js';
import { InvalidOptionError } from '../../src/errors/index.js';
import type { Workflow } from '../../src/workflow/index.js';
import { quietLogger, ROOT, supportWorkflow } from './helpers.js';

const EXAMPLES = ['refund-clean.json', 'refund-skipped-verification.json', 'support-sessions.jsonl'].map((name) => `${ROOT}examples/transcripts/${name}`);
let workflow: Workflow;
let dir: string;
beforeAll(async () => {
  workflow = await supportWorkflow();
  dir = mkdtempSync(join(tmpdir(), 'panoptes-audit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('auditTranscripts', () => {
  it('audits the sample transcripts in input order, with totals', async () => {
    const progress: string[] = [];
    const report = await auditTranscripts({ workflow, files: EXAMPLES, logger: quietLogger(), onProgress: ({ done, total }) => progress.push(`${done}/${total}`) });
    expect(report.sessions.map((session) => session.id)).toEqual(['refund-clean', 'refund-skipped-verification', 'refund-never-resolved', 'order-status']);
    expect(report.summary).toEqual({
      files: 3,
      sessions: 4,
      sessionsWithViolations: 2,
      violations: { warning: 1, error: 0, critical: 1 },
      warnings: 0,
      problems: 0,
      misses: {},
    });
    expect(progress).toEqual(['1/4', '2/4', '3/4', '4/4']);
    expect(report.embeddings).toBe('none');
  });

  it('goes on past a file that cannot be read, and reports it', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '[{"role": "user", "content": "hi"},');
    const report = await auditTranscripts({ workflow, files: [join(dir, 'missing.json'), bad, EXAMPLES[0]!], logger: quietLogger() });
    expect(report.sessions.map((session) => session.id)).toEqual(['refund-clean']);
    expect(report.problems).toEqual([
      { file: join(dir, 'missing.json'), text: 'no such file; check the path' },
      { file: bad, line: 1, column: 36, text: 'not JSON: Unexpected end of JSON input' },
    ]);
    expect(auditExitCode(report)).toBe(2);
  });

  it('warns when two sessions share an id, and replays both', async () => {
    const a = join(dir, 'a.jsonl');
    writeFileSync(a, ['{"id":"same","messages":[]}', '{"id":"same","messages":[]}'].join('\n'));
    const report = await auditTranscripts({ workflow, files: [a], logger: quietLogger() });
    expect(report.sessions).toHaveLength(2);
    expect(report.sessions[1]!.warnings).toEqual([{ text: `session id 'same' is also used by ${a}:1` }]);
  });

  it('runs sessions concurrently without mixing them up', async () => {
    const file = join(dir, 'many.jsonl');
    const lines = Array.from({ length: 40 }, (_, index) =>
      JSON.stringify({
        id: `s${index}`,
        messages:
          index % 2 === 0
            ? [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'issue_refund', arguments: '{}' } }] }]
            : [{ role: 'assistant', content: 'Hello! Is there anything else?' }],
      }),
    );
    writeFileSync(file, lines.join('\n'));
    const report = await auditTranscripts({ workflow, files: [file], concurrency: 8, logger: quietLogger() });
    report.sessions.forEach((session, index) => {
      expect(session.id).toBe(`s${index}`);
      expect(session.violations.some((violation) => violation.constraint === 'verify_before_account_action')).toBe(index % 2 === 0);
    });
  });

  it('rejects a concurrency that is not a positive whole number', async () => {
    await expect(auditTranscripts({ workflow, files: [], concurrency: 0 })).rejects.toThrow(InvalidOptionError);
  });
});

describe('auditExitCode', () => {
  const report = (severities: Array<'warning' | 'error' | 'critical'>, problems = 0) =>
    ({ problems: Array(problems).fill({ file: 'x', text: 'y' }), sessions: [{ violations: severities.map((severity) => ({ severity })) }] }) as unknown as AuditReport;

  it('is 0 below the threshold, 1 at or above it, 2 when something could not be read', () => {
    expect(auditExitCode(report(['warning']))).toBe(0);
    expect(auditExitCode(report(['error']))).toBe(1);
    expect(auditExitCode(report(['warning']), 'warning')).toBe(1);
    expect(auditExitCode(report(['error']), 'critical')).toBe(0);
    expect(auditExitCode(report(['critical']), 'critical')).toBe(1);
    expect(auditExitCode(report([], 1))).toBe(2);
  });
});

describe('files that are not transcripts', () => {
  it('reports a README caught by a glob once, not line by line', async () => {
    const { parseTranscripts } = await import('../../src/audit/index.js');
    const parsed = parseTranscripts('# Transcripts\n\nSome prose.\n', { file: 'README.md' });
    expect(parsed.transcripts).toEqual([]);
    expect(parsed.problems).toEqual([
      expect.objectContaining({ file: 'README.md', text: 'not a transcript: expected a .json file holding an array of messages, or a .jsonl file with one session per line' }),
    ]);
  });
});

describe('loops in transcripts', () => {
  it('reports an agent repeating a failing call, with what the monitor would have done', async () => {
    const { loadWorkflow } = await import('../../src/workflow/index.js');
    const workflow = await loadWorkflow(new URL('../../examples/workflows/customer-support.yaml', import.meta.url).pathname);
    const file = new URL('../fixtures/transcripts/stuck-tracking.json', import.meta.url).pathname;
    const report = await auditTranscripts({ workflow, files: [file] });
    const session = report.sessions[0]!;
    // OpenAI transcripts carry no error flag on tool messages, so the failing call reads as the same call with the
    // same result: repeated-action when the 4th identical call is made (message 8, issue 15), stronger at the 5th
    // (message 10), where the one-call cycle it completes goes with it.
    expect(session.loops.map((loop) => `${loop.kind}:${loop.action}@${loop.message}`)).toEqual([
      'repeated-action:hint@8',
      'repeated-action:stronger-hint@10',
    ]);
    expect(session.interventions).toContainEqual({ message: 10, name: 'loop:repeated-action', strategy: 'system-prompt-append', blocked: false });
    // The detector's own message counts monitor steps; the audit names places by message index only.
    expect(session.loops[0]!.detail).toBe('you called `track_parcel` 4 times in a row with the same arguments and got the same result each time it answered');
  });
});
