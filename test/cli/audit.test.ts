import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditCommand } from '../../src/cli/commands/audit.js';
import type { Output } from '../../src/cli/output.js';
import { ACCEPTED_FORMATS, NO_PAINT } from '../../src/audit/index.js';
import { writeTinyModel } from '../fixtures/tiny-model/tiny-model.js';

/** Tested as users run it: the built binary, in a child process, so stdout and stderr are pipes (not terminals). */
const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const WORKFLOW = 'examples/workflows/customer-support.yaml';
const EXAMPLES = ['examples/transcripts/refund-clean.json', 'examples/transcripts/refund-skipped-verification.json', 'examples/transcripts/support-sessions.jsonl'];
const FIXTURES = 'test/fixtures/transcripts';

async function panoptes(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' }, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const audit = (...args: string[]) => panoptes('audit', '--workflow', WORKFLOW, ...args);

let dir: string;
beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (\`npm test\` does).`);
  dir = mkdtempSync(join(tmpdir(), 'panoptes-cli-audit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('panoptes audit on the sample transcripts', () => {
  it('finds exactly the violations they contain, at their messages, and exits 1', async () => {
    const result = await audit('--json', ...EXAMPLES);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    const found = Object.fromEntries(
      report.sessions.map((session: { id: string; violations: Array<{ constraint: string; type: string; severity: string; message: number }> }) => [
        session.id,
        session.violations.map(({ constraint, type, severity, message }) => `${constraint} ${type} ${severity} messages[${message}]`),
      ]),
    );
    expect(found).toEqual({
      'refund-clean': [],
      'refund-skipped-verification': ['verify_before_account_action precedence critical messages[4]'],
      'refund-never-resolved': ['must_resolve eventually warning messages[10]'],
      'order-status': [],
    });
  });

  it('says what the live monitor would have done: the refund refused before it ran, at its message index, in text and JSON', async () => {
    const text = await audit('examples/transcripts/refund-skipped-verification.json');
    const lines = text.stdout.split('\n');
    const at = lines.indexOf('  what the live monitor would have done');
    expect(lines.slice(at, at + 3)).toEqual([
      '  what the live monitor would have done',
      '    messages[4]: issue_refund would have been refused before it ran (verify_before_account_action, critical)',
      '    messages[6]: verify_first would have been applied before the model wrote it (system-prompt-append)',
    ]);
    expect(text.stdout).not.toMatch(/block|trace position|step \d/);
    const session = JSON.parse((await audit('--json', 'examples/transcripts/refund-skipped-verification.json')).stdout).sessions[0];
    expect(session.refusals).toEqual([{ message: 4, tool: 'issue_refund', state: 'account_action', constraints: ['verify_before_account_action'] }]);
    expect(session.interventions).toEqual([{ message: 6, name: 'verify_first', strategy: 'system-prompt-append', blocked: false }]);
    expect(session.violations).toEqual([
      {
        constraint: 'verify_before_account_action',
        type: 'precedence',
        severity: 'critical',
        message: 4,
        state: 'account_action',
        atClose: false,
        text: "Entered 'account_action' at messages[4] before any of 'verify_identity'. 'verify_identity' must come before 'account_action'.",
      },
    ]);
    expect(session.deviations).toEqual([{ from: 'identify_issue', to: 'account_action', message: 4 }]);
    expect(session.steps.map((step: { message: number }) => step.message)).toEqual([2, 4, 6]);
  });

  it('prints the promised JSON shape', async () => {
    const report = JSON.parse((await audit('--json', ...EXAMPLES)).stdout);
    expect(report.workflow).toBe('customer-support');
    expect(report.sessions).toHaveLength(4);
    for (const session of report.sessions) {
      expect(typeof session.id).toBe('string');
      expect(session.trace.every((state: unknown) => typeof state === 'string')).toBe(true);
      for (const step of session.steps) {
        expect(step).toEqual(expect.objectContaining({ message: expect.any(Number), state: expect.any(String), confidence: expect.any(Number) }));
        expect(['tool_call', 'pattern', 'embedding', 'fallback']).toContain(step.method);
      }
      for (const violation of session.violations) {
        expect(violation).toEqual(expect.objectContaining({ constraint: expect.any(String), type: expect.any(String), severity: expect.any(String), message: expect.any(Number), text: expect.any(String) }));
      }
      for (const verdict of Object.values(session.verdicts)) expect(['satisfied', 'violated', 'pending']).toContain(verdict);
    }
    const clean = report.sessions[0];
    expect(clean.trace).toEqual(['greeting', 'identify_issue', 'verify_identity', 'account_action', 'resolution']);
    expect(clean.verdicts).toEqual({ verify_before_account_action: 'satisfied', no_internal_info: 'satisfied', account_action_is_confirmed: 'satisfied', must_resolve: 'satisfied' });
    expect(report.sessions[2].violations[0]).toMatchObject({ constraint: 'must_resolve', message: 10, atClose: true });
    expect(report.sessions[2].violations[0]).not.toHaveProperty('state');
    expect(report).toMatchObject({ exitCode: 1, failOn: 'error', embeddings: 'lexical' });
  });

  it('prints a readable report: trace, step table, violations at their step, verdicts, summary', async () => {
    const { stdout, stderr } = await audit(...EXAMPLES);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('Audit against customer-support 1.0 (embeddings: lexical)');
    expect(lines).toContain('refund-skipped-verification  examples/transcripts/refund-skipped-verification.json  ✗ 1 violation (1 critical)');
    expect(lines).toContain('  trace  greeting → identify_issue → account_action → resolution');
    expect(lines).toContain('  message      state           method     conf  evidence');
    expect(lines).toContain('✗ messages[4]  account_action  tool_call  1.00  tool issue_refund');
    expect(stdout).toContain("    ✗ messages[4]  critical  verify_before_account_action (precedence): Entered 'account_action' at messages[4] before any of 'verify_identity'.");
    expect(stdout).toContain("    ✗ at the end  warning   must_resolve (eventually): The session ended without reaching 'resolution'.");
    expect(lines).toContain('refund-never-resolved  examples/transcripts/support-sessions.jsonl:1  ✗ 1 violation (1 warning)');
    expect(lines.at(-2)).toBe('4 sessions in 3 files: 2 clean, 2 with violations (1 critical, 1 warning); 0 unreadable files or sessions. exit 1: a violation of severity error or worse');
    expect(stdout).not.toMatch(/\u001b\[/);
    expect(stderr).toBe(''); // no progress bar when stderr is not a terminal
  });

  it('fails on the severity asked for', async () => {
    expect((await audit('examples/transcripts/support-sessions.jsonl')).code).toBe(0); // only a warning
    expect((await audit('--fail-on', 'warning', 'examples/transcripts/support-sessions.jsonl')).code).toBe(1);
    expect((await audit('--fail-on', 'critical', 'examples/transcripts/refund-skipped-verification.json')).code).toBe(1);
    expect((await audit('--fail-on', 'critical', 'examples/transcripts/refund-clean.json')).code).toBe(0);
    const wrong = await audit('--fail-on', 'fatal', 'examples/transcripts/refund-clean.json');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("argument 'fatal' is invalid. Allowed choices are warning, error, critical.");
  });
});

describe('panoptes audit options', () => {
  it('takes a concurrency, and refuses one that is not a positive whole number', async () => {
    expect((await audit('--concurrency', '1', ...EXAMPLES)).code).toBe(1);
    const wrong = await audit('--concurrency', '0', ...EXAMPLES);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("option '--concurrency <n>' argument '0' is invalid. expected a positive whole number.");
  });
});

describe('panoptes audit on bad input', () => {
  it('reports each bad file with its place and reason, audits the others, and exits 2', async () => {
    const result = await audit(
      `${FIXTURES}/not-json.json`,
      `${FIXTURES}/not-an-array.json`,
      `${FIXTURES}/unknown-role.json`,
      `${FIXTURES}/mixed.jsonl`,
      `${FIXTURES}/missing.json`,
      'examples/transcripts/refund-clean.json',
    );
    expect(result.code).toBe(2);
    const lines = result.stdout.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'Could not audit',
        `  ✗ ${FIXTURES}/not-json.json:4:3: not JSON: Expected ',' or ']' after array element`,
        `  ✗ ${FIXTURES}/not-an-array.json: expected a JSON array of chat messages (or an object with a "messages" array), got an object with keys conversation; ${ACCEPTED_FORMATS}`,
        `  ✗ ${FIXTURES}/unknown-role.json: messages[1]: unknown role 'bot'; valid roles: system, developer, user, assistant, tool`,
        `  ✗ ${FIXTURES}/mixed.jsonl:3:64: not JSON: Expected ',' or ']' after array element`,
        `  ✗ ${FIXTURES}/mixed.jsonl:4: expected a session object { "id", "messages": [...] }, got an array`,
        `  ✗ ${FIXTURES}/mixed.jsonl:5: session 'wrong-role': messages[1]: unknown role 'customer'; valid roles: system, developer, user, assistant, tool`,
        `  ✗ ${FIXTURES}/missing.json: no such file; check the path`,
      ]),
    );
    // The good sessions around the bad ones were audited.
    expect(lines).toContain(`good  ${FIXTURES}/mixed.jsonl:1  ✗ 1 violation (1 warning)`);
    expect(lines).toContain(`mixed:6  ${FIXTURES}/mixed.jsonl:6  ✗ 1 violation (1 warning)`);
    expect(lines).toContain('refund-clean  examples/transcripts/refund-clean.json  ✓ no violations');
    expect(lines.at(-2)).toMatch(/; 7 unreadable files or sessions\. exit 2: not everything could be read$/);
  });

  it('lists problems in the JSON too', async () => {
    const report = JSON.parse((await audit('--json', `${FIXTURES}/not-json.json`, `${FIXTURES}/mixed.jsonl`)).stdout);
    expect(report.exitCode).toBe(2);
    expect(report.problems[0]).toEqual({ file: `${FIXTURES}/not-json.json`, line: 4, column: 3, text: "not JSON: Expected ',' or ']' after array element" });
    expect(report.problems[3]).toEqual({ file: `${FIXTURES}/mixed.jsonl`, line: 5, session: 'wrong-role', text: "messages[1]: unknown role 'customer'; valid roles: system, developer, user, assistant, tool" });
  });

  it('audits tool calls with malformed argument JSON with empty arguments, and says so', async () => {
    const result = await audit(`${FIXTURES}/bad-tool-arguments.json`);
    expect(result.code).toBe(1); // the refund without verification is still found
    expect(result.stdout).toContain('  warnings\n    ! messages[1].tool_calls[0] (issue_refund): arguments are not valid JSON (Expected double-quoted property name in JSON at position 21); audited with empty arguments');
    expect(result.stdout).toContain('✗ messages[1]  account_action  tool_call  1.00  tool issue_refund');
    expect(result.stdout).toContain('; 1 transcript warning.');
  });

  it('classifies an assistant message with only non-text content as no text', async () => {
    const report = JSON.parse((await audit('--json', `${FIXTURES}/non-text-content.json`)).stdout);
    expect(report.sessions[0].steps.map((step: { state: string; method: string; evidence: string }) => `${step.state} ${step.method} ${step.evidence}`)).toEqual([
      'greeting fallback fallback: no-text',
      'identify_issue pattern pattern /could you describe/', // its text parts joined
    ]);
  });

  it('reports an empty conversation as the initial state with a note, not as a failure', async () => {
    const result = await audit(`${FIXTURES}/empty-conversation.json`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`empty-conversation  ${FIXTURES}/empty-conversation.json  - empty conversation: nothing to audit\n  trace  greeting\n  verdicts\n    … pending    verify_before_account_action`);
  });

  it('audits a 10 MB message in bounded time', async () => {
    const file = join(dir, 'huge.json');
    const huge = `${'Let me check that order for you. '.repeat(320_000)}Is there anything else I can help with?`;
    writeFileSync(file, JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: huge }]));
    const started = Date.now();
    const report = JSON.parse((await audit('--json', file)).stdout);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(huge.length).toBeGreaterThan(10_000_000);
    // The pattern at the very end is past the 8k characters the classifier reads.
    expect(report.sessions[0].steps[0]).toMatchObject({ message: 1, state: 'greeting', method: 'fallback' });
  });

  it('exits 2 with the loader\'s message when the workflow cannot be read', async () => {
    const result = await panoptes('audit', '--workflow', 'nope.yaml', 'examples/transcripts/refund-clean.json');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('nope.yaml: no such file; check the path, or run `panoptes init` to write a starter workflow\n');
  });
});

describe('panoptes audit --html', () => {
  it('writes a self-contained page with escaped transcript text and the violation markers', async () => {
    const file = join(dir, 'report.html');
    const result = await audit('--html', file, 'examples/transcripts/refund-skipped-verification.json', `${FIXTURES}/script-injection.jsonl`);
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(`wrote ${file}`);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script|<link|src="http|<img/i);
    expect(html).toContain('&lt;img src=x onerror=alert(&#39;id&#39;)&gt;');
    expect(html).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;');
    expect(html).toMatch(/<div class="chip violated critical" id="s1-m4"[^>]*>.*✗ verify_before_account_action/);
    expect(html).toContain('<tr class="violated"><td class="step"><a href="#s1-m4">messages[4]</a>');
    expect(html).toContain('<li>messages[4]: <code>issue_refund</code> would have been refused before it ran (verify_before_account_action, critical)</li>');
  });

  it('keeps stdout pure JSON when combined with --json', async () => {
    const file = join(dir, 'both.html');
    const result = await audit('--json', '--html', file, 'examples/transcripts/refund-clean.json');
    expect(JSON.parse(result.stdout).sessions).toHaveLength(1);
    expect(result.stderr).toContain(`wrote ${file}`);
    expect(existsSync(file)).toBe(true);
  });

  it('exits 2 when the page cannot be written, and the report says exit 2 too (issue 13, item 7)', async () => {
    const file = join(dir, 'no/such/dir/report.html');
    const result = await audit('--html', file, 'examples/transcripts/refund-clean.json');
    expect(result.code).toBe(2);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/\. exit 2: the HTML report could not be written$/);
    expect(result.stdout).not.toContain('exit 0');
    expect(result.stderr).toBe(`cannot write ${file}: its folder does not exist\n`);
    const json = await audit('--json', '--html', file, 'examples/transcripts/refund-clean.json');
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).exitCode).toBe(2);
  });

  it('replaces an existing page whole and leaves no temporary file beside it', async () => {
    const folder = mkdtempSync(join(dir, 'replace-'));
    const file = join(folder, 'report.html');
    writeFileSync(file, 'an older report');
    expect((await audit('--html', file, 'examples/transcripts/refund-clean.json')).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^<!doctype html>[\s\S]*<\/html>\s*$/i);
    expect(readdirSync(folder)).toEqual(['report.html']);
  });
});

describe('panoptes audit --embeddings', () => {
  const workflow = `${FIXTURES}/exemplar-workflow.yaml`;
  const exemplarAudit = async (...args: string[]) => JSON.parse((await panoptes('audit', '--json', '--workflow', workflow, ...args)).stdout);
  const methods = (report: { sessions: Array<{ id: string; steps: Array<{ state: string; method: string }> }> }) =>
    Object.fromEntries(report.sessions.map((session) => [session.id, session.steps.map((step) => `${step.state} ${step.method}`)]));
  const files = [`${FIXTURES}/exemplar-verbatim.json`, `${FIXTURES}/exemplar-paraphrase.json`];

  it('uses the lexical embedder by default when the workflow has exemplars: it catches near-verbatim text only', async () => {
    const report = await exemplarAudit(...files);
    expect(report.embeddings).toBe('lexical');
    expect(methods(report)).toEqual({ 'exemplar-verbatim': ['billing embedding'], 'exemplar-paraphrase': ['start fallback'] });
  });

  it('skips the exemplar tier with none', async () => {
    expect(methods(await exemplarAudit('--embeddings', 'none', ...files))).toEqual({ 'exemplar-verbatim': ['start fallback'], 'exemplar-paraphrase': ['start fallback'] });
  });

  it('loads a local sentence model with minilm --model-path (here a tiny generated one) and catches the paraphrase', async () => {
    const models = join(dir, 'models');
    writeTinyModel(models, 'panoptes/tiny-bert');
    const byFolder = await exemplarAudit('--embeddings', 'minilm', '--model-path', join(models, 'panoptes/tiny-bert'), ...files);
    expect(byFolder.embeddings).toBe('minilm');
    expect(methods(byFolder)).toEqual({ 'exemplar-verbatim': ['billing embedding'], 'exemplar-paraphrase': ['billing embedding'] });
    const byRoot = await exemplarAudit('--embeddings', 'minilm', '--model-path', models, '--model', 'panoptes/tiny-bert', files[1]!);
    expect(methods(byRoot)).toEqual({ 'exemplar-paraphrase': ['billing embedding'] });
  });

  it('names the CLI flag, not an API function, when @huggingface/transformers is not installed (issue 13, item 10)', async () => {
    // The built CLI in a folder whose node_modules holds every package but @huggingface/*: Node's own resolution fails.
    const folder = mkdtempSync(join(dir, 'no-transformers-'));
    cpSync(join(ROOT, 'dist'), join(folder, 'dist'), { recursive: true });
    copyFileSync(join(ROOT, 'package.json'), join(folder, 'package.json'));
    mkdirSync(join(folder, 'node_modules'));
    for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
      if (entry !== '@huggingface') symlinkSync(join(ROOT, 'node_modules', entry), join(folder, 'node_modules', entry));
    }
    const result = await run(process.execPath, [join(folder, 'dist/src/cli/main.js'), 'audit', '--workflow', workflow, '--embeddings', 'minilm', files[0]!], { cwd: ROOT }).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      '--embeddings minilm needs the optional package `@huggingface/transformers`, which is not installed. Install it next to panoptes (`npm install @huggingface/transformers`), or pass --embeddings lexical (near-verbatim exemplars only; needs nothing).\n',
    );
  });

  it('exits 2 with a clear message when the model folder is wrong', async () => {
    const result = await panoptes('audit', '--workflow', workflow, '--embeddings', 'minilm', '--model-path', join(dir, 'nowhere'), files[0]!);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot load the embedding model 'Xenova/all-MiniLM-L6-v2' from ${join(dir, 'nowhere')}:`);
    expect(result.stderr).toContain('--model-path takes the model folder (config.json, tokenizer.json, onnx/model.onnx) or the folder above it.');
  });
});

describe('the progress bar', () => {
  const captured = () => {
    const out: string[] = [];
    const output: Output = { out: (line) => void out.push(line), err: (line) => void out.push(line), colors: NO_PAINT as Output['colors'] };
    return { out, output };
  };
  let many: string;
  beforeAll(() => {
    many = join(dir, 'many.jsonl');
    const session = (index: number) => JSON.stringify({ id: `s${index}`, messages: [{ role: 'assistant', content: 'Hello! Is there anything else?' }] });
    writeFileSync(many, Array.from({ length: 8 }, (_, index) => session(index)).join('\n'));
  });

  it('is drawn on a terminal when there are more than 5 sessions, and cleared at the end', async () => {
    const writes: string[] = [];
    const { output } = captured();
    await auditCommand([many], { workflow: `${ROOT}${WORKFLOW}` }, output, { isTTY: true, write: (text) => writes.push(text) });
    expect(writes[0]).toMatch(/^\raudit \[█+░*\] 1\/8 sessions$/);
    expect(writes.at(-2)).toBe('\raudit [████████████████████████] 8/8 sessions');
    expect(writes.at(-1)).toBe('\r\u001b[2K');
  });

  it('is not drawn when stderr is not a terminal, or for a few sessions', async () => {
    const writes: string[] = [];
    await auditCommand([many], { workflow: `${ROOT}${WORKFLOW}` }, captured().output, { isTTY: false, write: (text) => writes.push(text) });
    await auditCommand([`${ROOT}examples/transcripts/support-sessions.jsonl`], { workflow: `${ROOT}${WORKFLOW}` }, captured().output, { isTTY: true, write: (text) => writes.push(text) });
    expect(writes).toEqual([]);
  });
});

describe('panoptes rules check', () => {
  it('finds the airline rulebase clean: exit 0', async () => {
    const result = await panoptes('rules', 'check', 'examples/airline/policy.rules');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('✓ examples/airline/policy.rules\n\n1 file: all valid (0 errors, 0 warnings)\n');
  });

  it('points at file:line:column in a broken copy, and exits 1', async () => {
    const broken = join(dir, 'broken.rules');
    const text = readFileSync(join(ROOT, 'examples/airline/policy.rules'), 'utf8');
    writeFileSync(broken, text.replace('data membership(U, M)', 'data membershp(U, M)'));
    const result = await panoptes('rules', 'check', broken);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✗ ${broken}`);
    expect(result.stdout).toContain(`  ${broken}:191:52 error rule free_bags: predicate 'membership' is not defined by any rule, data or askable declaration; did you mean 'membershp'?`);
    expect(result.stdout).toContain('1 file: 1 with errors (3 errors, 0 warnings)');
  });

  it('prints JSON with --json', async () => {
    const broken = join(dir, 'syntax.rules');
    writeFileSync(broken, 'rule ok(X) :- X = 1.\nrule broken(X :- X = 2.\n');
    const result = await panoptes('rules', 'check', '--json', 'examples/airline/policy.rules', broken);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ ok: false, files: [{ file: 'examples/airline/policy.rules', ok: true, diagnostics: [] }, { file: broken, ok: false }] });
    expect(report.files[1].diagnostics[0]).toMatchObject({ severity: 'error', source: broken, line: 2, column: expect.any(Number) });
  });

  it('checks tool names and parameters against --tools', async () => {
    const tools = join(dir, 'tools.json');
    copyFileSync(join(ROOT, 'examples/airline/data/tools.json'), tools);
    const result = await panoptes('rules', 'check', '--tools', tools, 'examples/airline/policy.rules');
    expect(result.code).toBe(1); // the example adds get_flight_status, which the published tool list lacks
    expect(result.stdout).toContain("examples/airline/policy.rules:64:1 error data flight: tool 'get_flight_status' is not one of the agent's tools");
    const missing = await panoptes('rules', 'check', '--tools', join(dir, 'none.json'), 'examples/airline/policy.rules');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`${join(dir, 'none.json')}: no such file; check the --tools path\n`);
  });

  it('reports a missing rulebase file', async () => {
    const result = await panoptes('rules', 'check', 'nope.rules');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('nope.rules error no such file; check the path, or run `panoptes init` to write a starter rulebase');
  });
});
