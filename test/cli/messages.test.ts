import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, panoptes, ROOT } from './binary.js';

const run = promisify(execFile);

/**
 * The messages a new user meets first, checked word for word through the built binary: a missing file, a workflow
 * with a bad indentation or a duplicate state, the help text.
 */
let dir: string;
beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (\`npm test\` does).`);
  dir = mkdtempSync(join(tmpdir(), 'panoptes-messages-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORKFLOW_HINT = 'check the path, or run `panoptes init` to write a starter workflow';

describe('a missing file: one line with the path, "no such file" and what to do', () => {
  it('validate', async () => {
    const result = await panoptes(ROOT, 'validate', 'nope/workflow.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toContain(`  nope/workflow.yaml error no such file; ${WORKFLOW_HINT}`);
  });

  it('graph', async () => {
    const result = await panoptes(ROOT, 'graph', 'nope/workflow.yaml');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`nope/workflow.yaml: no such file; ${WORKFLOW_HINT}\n`);
  });

  it('audit --workflow', async () => {
    const result = await panoptes(ROOT, 'audit', '--workflow', 'nope/workflow.yaml', 'examples/transcripts/refund-clean.json');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`nope/workflow.yaml: no such file; ${WORKFLOW_HINT}\n`);
  });

  it('audit, a transcript', async () => {
    const result = await panoptes(ROOT, 'audit', '--workflow', 'examples/workflows/customer-support.yaml', 'nope/chat.json');
    expect(result.code).toBe(2);
    expect(result.stdout.split('\n')).toContain('  ✗ nope/chat.json: no such file; check the path');
  });

  it('compile, the policy', async () => {
    const result = await panoptes(ROOT, 'compile', 'nope/policy.md', '--scripted', 'examples/airline/compile/answers.json');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('nope/policy.md: no such file; check the path of the policy (a text or Markdown file)\n');
  });

  it('compile --scripted and --tools', async () => {
    const scripted = await panoptes(ROOT, 'compile', 'examples/policies/refund-desk.md', '--scripted', 'nope/answers.json');
    expect(scripted.code).toBe(2);
    expect(scripted.stderr).toBe('nope/answers.json: no such file; check the --scripted path\n');
    const tools = await panoptes(ROOT, 'compile', 'examples/policies/refund-desk.md', '--tools', 'nope/tools.json', '--scripted', 'examples/airline/compile/answers.json');
    expect(tools.code).toBe(2);
    expect(tools.stderr).toBe('nope/tools.json: no such file; check the --tools path\n');
  });

  it('test, a scenario file, the default folder and a scenario\'s workflow', async () => {
    const file = await panoptes(ROOT, 'test', 'nope/scenario.yaml');
    expect(file.code).toBe(1);
    expect(file.stdout.split('\n')).toContain('  nope/scenario.yaml: no such file; check the path, or run `panoptes init` to write starter scenarios');
    const folder = await panoptes(dir, 'test');
    expect(folder.code).toBe(1);
    expect(folder.stdout.split('\n')).toContain('  panoptes/scenarios: no such file; check the path, or run `panoptes init` to write starter scenarios');
    const workflow = await panoptes(ROOT, 'test', '--workflow', 'nope/workflow.yaml', 'test/fixtures/scenarios/no-workflow.yaml');
    expect(workflow.code).toBe(1);
    expect(workflow.stdout.split('\n')).toContain(`  the workflow nope/workflow.yaml: no such file; ${WORKFLOW_HINT}`);
  });

  it('rules check, and its --tools', async () => {
    const file = await panoptes(ROOT, 'rules', 'check', 'nope/policy.rules');
    expect(file.code).toBe(1);
    expect(file.stdout.split('\n')).toContain('  nope/policy.rules error no such file; check the path, or run `panoptes init` to write a starter rulebase');
    const tools = await panoptes(ROOT, 'rules', 'check', '--tools', 'nope/tools.json', 'examples/airline/policy.rules');
    expect(tools.code).toBe(1);
    expect(tools.stderr).toBe('nope/tools.json: no such file; check the --tools path\n');
  });
});

describe('a workflow with a bad indentation', () => {
  it('gives one error: file:line:column on the line that is wrong, what is wrong, and the fix', async () => {
    const result = await panoptes(ROOT, 'validate', 'test/fixtures/workflows/bad-indentation.yaml');
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      '✗ test/fixtures/workflows/bad-indentation.yaml',
      "  test/fixtures/workflows/bad-indentation.yaml:9:6 error bad indentation: 'classification:' is indented 5 spaces, more than 'name:' on line 8 (4 spaces), which has a value, so nothing can be nested under it; indent it 4 spaces, like 'name:' on line 8",
      '',
      '1 file: 1 with errors (1 error, 0 warnings)',
      '',
    ]);
  });

  it('in a scenario file too', async () => {
    const file = join(dir, 'greeting.yaml');
    writeFileSync(file, ['name: greeting', 'conversation:', '  - role: user', '     content: Hi', 'expect:', '  violations: []', ''].join('\n'));
    const result = await panoptes(ROOT, 'test', '--workflow', 'examples/workflows/customer-support.yaml', file);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toContain(
      `  ${file}:4:6 error bad indentation: 'content: Hi' is indented 5 spaces, more than 'role:' on line 3 (4 spaces), which has a value, so nothing can be nested under it; indent it 4 spaces, like 'role:' on line 3`,
    );
  });
});

describe('a workflow with a state defined twice', () => {
  it('reports the duplicate once, with both positions, and not the references its lost name left behind', async () => {
    const file = 'test/fixtures/workflows/duplicate-state.yaml';
    const result = await panoptes(ROOT, 'validate', file);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      `✗ ${file}`,
      `  ${file}:27:11 error states[3].name: state 'verify_identity' is defined twice: at line 21, column 11 and at line 27, column 11; rename one of them: it is probably meant to be 'account_action', which 5 references use and no state defines (transitions[4].to, transitions[7].from, transitions[8].from, constraints[0].trigger, constraints[2].trigger)`,
      '',
      '1 file: 1 with errors (1 error, 0 warnings)',
      '',
    ]);
  });
});

describe('panoptes --help', () => {
  it('describes every command in one accurate line, and says where the details are', async () => {
    const result = await panoptes(ROOT, '--help');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.slice(lines.indexOf('Commands:'))).toEqual([
      'Commands:',
      '  validate [options] <files...>     check workflow and rubric files',
      '  graph [options] <file>            print a workflow as a Mermaid diagram',
      '  info [options] <target>           what a workflow, rulebase or proxy holds',
      '  audit [options] <transcripts...>  replay transcripts against a workflow',
      '  rules                             check .rules files: rules check <files...>',
      '  test [options] [files...]         run scenarios and check their expectations',
      '  compile [options] <policy>        draft a workflow or rubrics from a policy',
      '  verify [options]                  check cases against a policy with a model',
      '  judge                             record and calibrate judged rubrics',
      '  init [options]                    write a starter panoptes/ folder',
      '  serve [options]                   run the OpenAI-compatible proxy',
      '  help [command]                    display help for command',
      '',
      'Run `panoptes <command> --help` for its options and exit codes.',
      '',
    ]);
    expect(lines[2]).toBe('Monitor LLM agents against YAML workflows: check workflows and rules, test');
  });

  it('keeps each command\'s full description in its own help', async () => {
    const result = await panoptes(ROOT, 'audit', '--help');
    expect(result.stdout).toContain('replay recorded conversations through a workflow monitor');
  });
});

describe('panoptes serve: a bad setting names the flag, variable or key', () => {
  const base = ['serve', '--upstream', 'http://127.0.0.1:9/v1', '--workflow', 'examples/workflows/customer-support.yaml'];
  it('a flag', async () => {
    const result = await panoptes(ROOT, ...base, '--port', 'abc');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('command line error --port: not a whole number: received "abc"; expected a TCP port from 0 to 65535 (0 picks a free port)');
  });

  it('a variable', async () => {
    const result = await run(process.execPath, [BIN, ...base], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', PANOPTES_PORT: 'abc' } }).catch((error: { code: number; stderr: string }) => error);
    expect((result as { code: number }).code).toBe(1);
    expect(result.stderr).toContain('environment error PANOPTES_PORT: not a whole number: received "abc"; expected a TCP port from 0 to 65535 (0 picks a free port)');
  });

  it('a config key', async () => {
    const config = join(dir, 'panoptes.yaml');
    writeFileSync(config, 'port: 99999\n');
    const result = await panoptes(ROOT, ...base, '--config', config);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${config}:1:7 error port: out of range: received 99999; expected a TCP port from 0 to 65535 (0 picks a free port)`);
  });
});

describe('panoptes compile: the $schema line resolves once panoptes is installed', () => {
  const compile = (cwd: string, ...out: string[]) =>
    panoptes(cwd, 'compile', join(ROOT, 'examples/policies/refund-desk.md'), '--scripted', join(ROOT, 'examples/policies/compiled/refund-desk.answers.json'), ...out);
  const schemaOf = (text: string) => /^# yaml-language-server: \$schema=(.*)$/m.exec(text)?.[1];

  it('from where the file is written to node_modules/panoptes/workflow.schema.json in its project', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'node_modules/panoptes'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{ "name": "my-agent" }\n');
    writeFileSync(join(project, 'node_modules/panoptes/workflow.schema.json'), '{}\n');
    for (const [out, expected] of [
      ['panoptes/workflow.yaml', '../node_modules/panoptes/workflow.schema.json'],
      ['workflow.yaml', './node_modules/panoptes/workflow.schema.json'],
      ['a/b/workflow.yaml', '../../node_modules/panoptes/workflow.schema.json'],
    ] as const) {
      mkdirSync(dirname(join(project, out)), { recursive: true });
      const result = await compile(project, '--out', out);
      expect(result.code).toBe(0);
      const schema = schemaOf(readFileSync(join(project, out), 'utf8'));
      expect(schema).toBe(expected);
      expect(existsSync(resolve(dirname(join(project, out)), schema!))).toBe(true);
    }
  });

  it('where npm install will put it, when panoptes is not installed yet; from the working folder on stdout', async () => {
    const project = join(dir, 'fresh');
    mkdirSync(join(project, 'panoptes'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{ "name": "fresh" }\n');
    await compile(project, '--out', 'panoptes/workflow.yaml');
    expect(schemaOf(readFileSync(join(project, 'panoptes/workflow.yaml'), 'utf8'))).toBe('../node_modules/panoptes/workflow.schema.json');
    expect(schemaOf((await compile(project)).stdout)).toBe('./node_modules/panoptes/workflow.schema.json');
  });
});

