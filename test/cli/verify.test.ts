import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

/** `panoptes verify` as users run it: the built binary in a child process. */
const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = 'examples/verification/expenses';
const run = promisify(execFile);

async function panoptes(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', OPENAI_API_KEY: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const job = (...more: string[]) => ['verify', '--policy', `${EXAMPLE}/travel-policy.md`, '--criteria', `${EXAMPLE}/criteria.yaml`, '--cases', `${EXAMPLE}/claims.jsonl`, '--scripted', `${EXAMPLE}/answers.json`, ...more];
const scratch = () => mkdtempSync(join(tmpdir(), 'panoptes-verify-'));
const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { caseId: string; criterionId: string; status: string });
const pairs = (results: Array<{ caseId: string; criterionId: string }>) => results.map((result) => `${result.caseId}/${result.criterionId}`);

describe('panoptes verify (built binary)', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (\`npm test\` does).`);
  });

  it('without --out writes the results to stdout, progress lines (not a terminal) and the summary to stderr', async () => {
    const { code, stdout, stderr } = await panoptes(...job('--concurrency', '3'));
    expect(code).toBe(0);
    const results = stdout.trim().split('\n').map((line) => JSON.parse(line) as { caseId: string; criterionId: string });
    expect(results).toHaveLength(30);
    expect(new Set(pairs(results)).size).toBe(30);
    expect(Object.keys(results[0]!).slice(0, 2)).toEqual(['caseId', 'criterionId']);
    const progress = stderr.split('\n').filter((line) => line.startsWith('verify: '));
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(11);
    expect(progress.at(-1)).toMatch(/^verify: 30\/30 100% · met 23 · not met 5 · uncertain 2 · /);
    expect(stderr).not.toContain('\r');
    expect(stderr).toMatch(/^total +23 +5 +2 +0 /m);
    expect(stderr).toContain('30 of 30 verdicts in ');
  });

  it('resumes a killed run where it stopped: no case and criterion verified twice', async () => {
    const folder = scratch();
    const out = join(folder, 'results.jsonl');
    // slow answers, two at a time: killed once some lines are written
    const child = spawn(process.execPath, [BIN, ...job('--scripted-delay', '150', '--concurrency', '2', '--out', out)], { cwd: ROOT, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const started = Date.now();
    while (!(existsSync(out) && readFileSync(out, 'utf8').split('\n').length > 6) && Date.now() - started < 15_000) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGKILL');
    await exited;
    const before = lines(out);
    expect(before.length).toBeGreaterThan(4);
    expect(before.length).toBeLessThan(30);
    // a kill while writing leaves a line unfinished
    writeFileSync(out, `${readFileSync(out, 'utf8')}{"caseId":"EXP-10`);

    const refused = await panoptes(...job('--out', out));
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(`${out} already has results: pass --resume to go on with them, or choose another --out`);

    const resumed = await panoptes(...job('--out', out, '--resume', '--concurrency', '4'));
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`${out}: dropped an unfinished last line`);
    expect(resumed.stdout).toContain(`30 of 30 verdicts (${before.length} from an earlier run) in `);
    expect(resumed.stdout).toContain(`, ${30 - before.length} run now with scripted answers (answers.json)`);
    const after = lines(out);
    expect(after).toHaveLength(30);
    expect(new Set(pairs(after)).size).toBe(30);
    expect(pairs(after.slice(0, before.length))).toEqual(pairs(before));

    // nothing left to do: a second resume runs nothing
    const again = await panoptes(...job('--out', out, '--resume'));
    expect(again.stdout).toContain('30 of 30 verdicts (30 from an earlier run) in ');
    expect(lines(out)).toHaveLength(30);
  });

  it('stops on Ctrl-C after the runs in flight, every line whole, and exits 130', async () => {
    const out = join(scratch(), 'results.jsonl');
    const child = spawn(process.execPath, [BIN, ...job('--scripted-delay', '150', '--concurrency', '2', '--out', out)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const started = Date.now();
    while (!(existsSync(out) && readFileSync(out, 'utf8').split('\n').length > 4) && Date.now() - started < 15_000) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const written = lines(out); // every line parses
    expect(written.length).toBeLessThan(30);
    expect(readFileSync(out, 'utf8').endsWith('\n')).toBe(true);
    expect(stderr).toContain(`stopped after ${written.length} of 30: run the same command with --resume to go on`);
  });

  it('counts a pair the scripted answers miss as a failed run (exit 1), which --resume runs again', async () => {
    const folder = scratch();
    const answers = JSON.parse(readFileSync(join(ROOT, EXAMPLE, 'answers.json'), 'utf8')) as Array<{ case: string; criterion: string }>;
    writeFileSync(join(folder, 'partial.json'), JSON.stringify(answers.filter((answer) => !(answer.case === 'EXP-1003' && answer.criterion === 'meals'))));
    const out = join(folder, 'results.jsonl');
    const args = (file: string, ...more: string[]) => ['verify', '--policy', `${EXAMPLE}/travel-policy.md`, '--criteria', `${EXAMPLE}/criteria.yaml`, '--cases', `${EXAMPLE}/claims.jsonl`, '--scripted', file, '--out', out, ...more];
    const first = await panoptes(...args(join(folder, 'partial.json')));
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('1 run failed (llm_error or retrieval_error), the first with: Error: partial.json has no answer for case "EXP-1003", criterion "meals"');
    expect(first.stderr).toContain('run the same command with --resume to try them again');
    const failed = lines(out).find((result) => result.caseId === 'EXP-1003' && result.criterionId === 'meals') as unknown as { status: string; reasonCode: string };
    expect(failed).toMatchObject({ status: 'uncertain', reasonCode: 'llm_error' });

    const html = join(folder, 'report.html');
    const second = await panoptes(...args(`${EXAMPLE}/answers.json`, '--resume', '--html', html));
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('30 of 30 verdicts (29 from an earlier run) in ');
    expect(second.stdout).toContain(', 1 run now with ');
    const after = lines(out);
    expect(after).toHaveLength(31); // the pair's new line follows its failed one, and is its result
    expect(after.at(-1)).toMatchObject({ caseId: 'EXP-1003', criterionId: 'meals', status: 'not_met' });
    expect(readFileSync(html, 'utf8').match(/<article class="verdict /g)).toHaveLength(30);
    expect(readFileSync(html, 'utf8')).not.toContain('has no answer');
  });

  it('stops a job whose first 10 runs all fail (a wrong key, no network)', async () => {
    const folder = scratch();
    writeFileSync(join(folder, 'one.json'), JSON.stringify([{ case: 'EXP-1006', criterion: 'submitted_on_time', status: 'met', confidence: 0.9, citations: [], rationale: 'x' }]));
    const out = join(folder, 'results.jsonl');
    const { code, stderr } = await panoptes('verify', '--policy', `${EXAMPLE}/travel-policy.md`, '--criteria', `${EXAMPLE}/criteria.yaml`, '--cases', `${EXAMPLE}/claims.jsonl`, '--scripted', join(folder, 'one.json'), '--concurrency', '2', '--out', out);
    expect(code).toBe(1);
    expect(stderr).toContain('stopped: the first 10 runs all failed, the first with: Error: one.json has no answer for case "EXP-1001", criterion "receipts"');
    expect(lines(out).length).toBeLessThan(15);
  });

  it('loads --model with initChatModel, and says so when it cannot', async () => {
    const { code, stderr } = await panoptes('verify', '--policy', `${EXAMPLE}/travel-policy.md`, '--criteria', `${EXAMPLE}/criteria.yaml`, '--cases', `${EXAMPLE}/claims.jsonl`, '--model', 'nosuchprovider:some-model');
    expect(code).toBe(2);
    expect(stderr).toMatch(/^cannot load the model 'nosuchprovider:some-model': .+; write it as provider:name/);
  });

  describe('bad inputs: one error each, with its file, line and column', () => {
    const files = (contents: Record<string, string>) => {
      const folder = scratch();
      for (const [name, text] of Object.entries(contents)) writeFileSync(join(folder, name), text);
      return (name: string) => join(folder, name);
    };
    const verify = (at: (name: string) => string, names: { criteria?: string; cases?: string; answers?: string; policy?: string }, ...more: string[]) =>
      panoptes('verify', '--policy', names.policy ?? `${EXAMPLE}/travel-policy.md`, '--criteria', names.criteria ? at(names.criteria) : `${EXAMPLE}/criteria.yaml`, '--cases', names.cases ? at(names.cases) : `${EXAMPLE}/claims.jsonl`, '--scripted', names.answers ? at(names.answers) : `${EXAMPLE}/answers.json`, ...more);

    it.each([
      ['a missing policy file', {}, { policy: 'no/such/policy.md' }, 'no/such/policy.md: cannot read the policy file: no such file'],
      ['a missing cases file', {}, { cases: 'absent.jsonl' }, '{absent.jsonl}: cannot read the cases file: no such file'],
      ['YAML that does not parse', { 'c.yaml': 'criteria:\n  - id: a\n    text: [unclosed\n' }, { criteria: 'c.yaml' }, '{c.yaml}:4:1: not valid YAML: …'],
      ['an unknown criterion field', { 'c.yaml': 'criteria:\n  - id: receipts\n    txt: Receipts are itemised.\n' }, { criteria: 'c.yaml' }, "{c.yaml}:3:5: unknown field 'txt' in criterion 1 (did you mean 'text'?); a criterion has: id, text"],
      ['a criterion without text', { 'c.yaml': '- id: receipts\n- id: meals\n  text: Meals within the per diem.\n' }, { criteria: 'c.yaml' }, "{c.yaml}:1:3: criterion 'receipts' has no text: give the requirement in the policy's words"],
      ['a criterion id used twice', { 'c.yaml': '- { id: a, text: One. }\n- { id: a, text: Two. }\n' }, { criteria: 'c.yaml' }, "{c.yaml}:2:9: criterion id 'a' is used twice (first at {c.yaml}:1:9)"],
      ['a JSONL line that is not JSON', { 'k.jsonl': '{"id": "A-1"}\n\n{"id": "A-2", "amount": 12,}\n' }, { cases: 'k.jsonl' }, '{k.jsonl}:3:28: not JSON: Expected double-quoted property name'],
      ['a case without an id', { 'k.jsonl': '{"id": "A-1"}\n{"amount": 12}\n' }, { cases: 'k.jsonl' }, '{k.jsonl}:2:1: the case has no "id" (a string or a number): every case needs one, so its results can be matched to it'],
      ['a case id used twice', { 'k.jsonl': '{"id": "A-1"}\n{"amount": 3, "id": "A-1"}\n' }, { cases: 'k.jsonl' }, "{k.jsonl}:2:15: case id 'A-1' is used twice (first on line 1)"],
      ['an unknown answer field', { 'a.json': '[\n  {"case": "EXP-1001", "criterion": "receipts", "status": "met", "confidence": 0.9,\n   "citations": [], "rationale": "ok", "quote": "x"}\n]\n' }, { answers: 'a.json' }, "{a.json}:3:40: unknown field 'quote' in answer 1; an answer has: case, criterion, status, confidence, citations, rationale, query"],
      ['an answer for a criterion the job lacks', { 'a.json': '[{"case": "EXP-1001", "criterion": "reciepts", "status": "met", "confidence": 0.9, "citations": [], "rationale": "ok"}]' }, { answers: 'a.json' }, `{a.json}:1:36: answer 1 is for criterion "reciepts", which the criteria file does not have (did you mean 'receipts'?)`],
    ] as const)('%s', async (_, contents, names, expected) => {
      const at = files(contents);
      const { code, stderr, stdout } = await verify(at, names);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      const message = stderr.trim();
      expect(message.split('\n')).toHaveLength(1);
      const placed = (text: string) => text.replace(/\{([^}]+)\}/g, (__, name: string) => at(name));
      // a message ending in … is checked up to there (the rest is the parser's own words)
      if (expected.endsWith('…')) expect(message.startsWith(placed(expected.slice(0, -1)))).toBe(true);
      else expect(message).toBe(placed(expected));
    });

    it('--resume without --out, and an --out folder', async () => {
      expect((await panoptes(...job('--resume'))).stderr.trim()).toBe('--resume needs --out: the results file to go on with');
      const folder = scratch();
      const result = await panoptes(...job('--out', folder));
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(`${folder}: --out is a folder, not a file`);
      expect(statSync(folder).isDirectory()).toBe(true);
    });
  });
});
