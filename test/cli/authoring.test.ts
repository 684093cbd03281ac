import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, panoptes, ROOT } from './binary.js';

const run = promisify(execFile);

/** The built binary in a child process, as users run it (issue 19: init, test, validate's counterexamples). */
describe('panoptes authoring commands (built binary)', () => {
  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (\`npm test\` does).`);
  });

  // The CI gate of the examples: every scenario under examples/ passes.
  it('test: the example scenarios pass (exit 0) and the JUnit file lists each', async () => {
    const junit = join(mkdtempSync(join(tmpdir(), 'panoptes-junit-')), 'report.xml');
    const result = await panoptes(ROOT, 'test', 'examples/scenarios', '--junit', junit);
    expect(result.stdout).toMatch(/(\d+) scenarios: \1 passed; all passed/);
    expect(result.code).toBe(0);
    expect(readFileSync(junit, 'utf8')).toContain('failures="0" errors="0"');
  });

  it('init writes a folder that validates and whose scenarios pass; a second init refuses to overwrite', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-init-'));
    const init = await panoptes(folder, 'init', '--host', 'langgraph');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('created panoptes/workflow.yaml');
    expect(init.stdout).toContain('created panoptes/agent.mjs');
    expect(readFileSync(join(folder, 'panoptes/workflow.yaml'), 'utf8')).toMatch(/^# yaml-language-server: \$schema=/);
    const validate = await panoptes(folder, 'validate', 'panoptes/workflow.yaml');
    expect(validate.stdout).toContain('1 file: all valid (0 errors, 0 warnings)');
    const test = await panoptes(folder, 'test');
    expect(test.stdout).toContain('2 scenarios: 2 passed; all passed');
    expect(test.code).toBe(0);
    const again = await panoptes(folder, 'init');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('panoptes/workflow.yaml exists; pass --force to overwrite it');
  });

  it('test: a failing scenario exits 1 with its diff; --json carries the mismatches', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-fail-'));
    writeFileSync(
      join(folder, 'wrong.yaml'),
      [
        `workflow: ${join(ROOT, 'examples/workflows/customer-support.yaml')}`,
        `transcript: ${join(ROOT, 'examples/transcripts/refund-skipped-verification.json')}`,
        'expect:',
        '  refused: []',
      ].join('\n'),
    );
    const result = await panoptes(folder, 'test', 'wrong.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('✗ FAIL  wrong');
    expect(result.stdout).toContain('  refused:\n    - expected []\n    + actual   ["issue_refund"]');
    const json = await panoptes(folder, 'test', 'wrong.yaml', '--json');
    expect(JSON.parse(json.stdout).results[0].mismatches).toEqual([{ field: 'refused', expected: [], actual: ['issue_refund'] }]);
  });

  it('validate shows a counterexample for a loose workflow; --strict-paths makes it an error (exit 1)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-loose-'));
    writeFileSync(
      join(folder, 'loose.yaml'),
      [
        'name: loose',
        'states:',
        '  - { name: greeting, initial: true, classification: { patterns: [hello] } }',
        '  - { name: verify_identity, classification: { tool_calls: [verify] } }',
        '  - { name: account_action, classification: { tool_calls: [refund] } }',
        'transitions:',
        '  - { from: greeting, to: verify_identity }',
        '  - { from: greeting, to: account_action }',
        '  - { from: verify_identity, to: account_action }',
        'constraints:',
        '  - { name: verify_before_refund, type: precedence, trigger: account_action, target: verify_identity }',
      ].join('\n'),
    );
    const loose = await panoptes(folder, 'validate', 'loose.yaml');
    expect(loose.code).toBe(0);
    expect(loose.stdout).toContain('loose.yaml:11:5 warning constraints[0]: the workflow lets an agent break `verify_before_refund`: greeting -> account_action');
    const strict = await panoptes(folder, 'validate', '--strict-paths', 'loose.yaml');
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('loose.yaml:11:5 error constraints[0]: the workflow lets an agent break');
  });

  it('compile --scripted writes a valid workflow, prints each round and saves the prompt; a draft that stays invalid exits 1', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-compile-'));
    const out = join(folder, 'workflow.yaml');
    const prompt = join(folder, 'prompt.json');
    const result = await panoptes(ROOT, 'compile', 'examples/airline/data/policy.md', '--scripted', 'examples/airline/compile/answers.json', '--tools', 'examples/airline/data/tools.json', '--out', out, '--save-prompt', prompt);
    expect(result.stderr).toContain('workflow round 1: 2 errors, repairing\nworkflow round 2: valid');
    expect(result.code).toBe(0);
    expect((await panoptes(ROOT, 'validate', out)).code).toBe(0);
    expect(JSON.parse(readFileSync(prompt, 'utf8')).at(-1).content).toContain("unknown state 'get_user_details'");
    writeFileSync(join(folder, 'broken.json'), JSON.stringify([{ name: 'x', description: 'x', states: [], transitions: [], constraints: [], interventions: [] }]));
    const broken = await panoptes(ROOT, 'compile', 'examples/policies/refund-desk.md', '--scripted', join(folder, 'broken.json'), '--max-repairs', '0');
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("The model's workflow is still invalid after 0 repair rounds:");
  });

  it('compile --judge --scripted repairs the draft against positioned errors and writes a rubric file that validates', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'panoptes-compile-judge-'));
    const out = join(folder, 'mail.rubrics.yaml');
    const result = await panoptes(ROOT, 'compile', '--judge', 'examples/rubrics/compile/mail-policy.md', '--scripted', 'examples/rubrics/compile/answers.json', '--tools', 'examples/rubrics/compile/tools.json', '--out', out);
    expect(result.stderr).toContain('rubrics round 1: 2 errors, repairing\nrubrics round 2: valid');
    expect(result.stderr).toContain(`wrote ${out}`);
    expect(result.code).toBe(0);
    const written = readFileSync(out, 'utf8');
    expect(written).toMatch(/^# yaml-language-server: \$schema=\S+rubric\.schema\.json\n# Drafted by `panoptes compile` from mail-policy\.md with scripted \(answers\.json\)\./);
    const validate = await panoptes(ROOT, 'validate', out);
    expect(validate.stdout).toContain('2 rubrics: outgoing_mail (tool_call, 2 criteria), polite (turn, 1 criterion)');
    expect(validate.code).toBe(0);
    const both = await panoptes(ROOT, 'compile', '--judge', 'examples/rubrics/compile/mail-policy.md', '--scripted', 'examples/rubrics/compile/answers.json', '--rules-out', join(folder, 'x.rules'));
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--judge drafts a rubric file in place of the workflow');
  });

  // The real provider path, as far as it runs here: initChatModel is loaded lazily and builds ChatOpenAI, whose first
  // call refuses to go out without a key, so the command stops before any network call and says why.
  it('compile --model goes through LangChain initChatModel to the provider, and reports its failure (exit 1)', async () => {
    const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'OPENAI_API_KEY'));
    const result = await run(process.execPath, [BIN, 'compile', 'examples/policies/refund-desk.md', '--model', 'openai:gpt-4o-mini'], { cwd: ROOT, env: environment }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^The model call failed in round 1 of compiling the workflow: .*OPENAI_API_KEY/);
    // --judge takes the same model path: the rubric compiler's first call fails the same way.
    const judged = await run(process.execPath, [BIN, 'compile', '--judge', 'examples/rubrics/compile/mail-policy.md', '--model', 'openai:gpt-4o-mini'], { cwd: ROOT, env: environment }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(judged.code).toBe(1);
    expect(judged.stderr).toMatch(/^The model call failed in round 1 of compiling the rubric file: .*OPENAI_API_KEY/);
  });
});
