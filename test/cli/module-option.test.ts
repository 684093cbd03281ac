/**
 * `--module` beyond `validate`: `info`, `graph`, `audit`, `test` and `serve` run a workflow whose constraint type and
 * strategy come from a module, as users run them (the built binary in a child process).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../proxy/fake-upstream.js';
import { BIN, panoptes, ROOT } from './binary.js';

const FIXTURES = 'test/fixtures/extensions';
const MODULE = `${FIXTURES}/max-count.mjs`;
const WORKFLOW = `${FIXTURES}/lookups.yaml`;
const TRANSCRIPT = `${FIXTURES}/three-lookups.json`;

describe('--module on the commands that run a workflow', () => {
  it('audit: replays a transcript through the custom type, which finds the third lookup', async () => {
    const { code, stdout } = await panoptes(ROOT, 'audit', '--module', MODULE, '--workflow', WORKFLOW, TRANSCRIPT);
    expect(stdout).toContain("✗ messages[7]  error     few_lookups (max_count): Entered 'lookup' more than 2 times.");
    expect(stdout).toContain('messages[9]: stop_looking would have been applied before the model wrote it (developer_note)');
    expect(code).toBe(1);
  });

  it('audit: without the module, the workflow does not load (exit 2) and the error names the type', async () => {
    const { code, stderr } = await panoptes(ROOT, 'audit', '--workflow', WORKFLOW, TRANSCRIPT);
    expect(stderr).toContain(`${WORKFLOW}:12:11 error constraints[0].type: unknown constraint type "max_count"`);
    expect(code).toBe(2);
  });

  it('audit: a module that throws on import, or gives nothing, is one line on stderr and exit 2', async () => {
    const throws = await panoptes(ROOT, 'audit', '--module', `${FIXTURES}/throws.mjs`, '--workflow', WORKFLOW, TRANSCRIPT);
    expect(throws.stderr).toBe(`--module: ${FIXTURES}/throws.mjs error cannot import the module: the types module is broken; check the path, and that the module runs under Node on its own (a compiled .js or .mjs file)\n`);
    expect(throws.code).toBe(2);
    const empty = await panoptes(ROOT, 'audit', '--module', `${FIXTURES}/gives-nothing.mjs`, '--workflow', WORKFLOW, TRANSCRIPT);
    expect(empty.stderr).toContain(`--module: ${FIXTURES}/gives-nothing.mjs error the module gives no constraint type, intervention strategy or classification tier; export what defineConstraintType`);
    expect(empty.code).toBe(2);
  });

  it('test: a scenario of the workflow passes with the module, and cannot run without it', async () => {
    const passed = await panoptes(ROOT, 'test', '--module', MODULE, `${FIXTURES}/lookups.scenario.yaml`);
    expect(passed.stdout).toContain('1 scenario: 1 passed; all passed');
    expect(passed.code).toBe(0);
    const without = await panoptes(ROOT, 'test', `${FIXTURES}/lookups.scenario.yaml`);
    expect(without.stdout).toContain('unknown constraint type "max_count"');
    expect(without.code).toBe(1);
  });

  it('info and graph: read the workflow with the module (a module registering on import and one exporting a registry)', async () => {
    const info = await panoptes(ROOT, 'info', '--module', MODULE, WORKFLOW);
    expect(info.stdout).toContain('few_lookups  error     max_count {"state":"lookup","max":2}  -> stop_looking');
    expect(info.code).toBe(0);
    const graph = await panoptes(ROOT, 'graph', '--module', `${FIXTURES}/exports-registry.mjs`, WORKFLOW);
    expect(graph.stdout).toMatch(/^stateDiagram-v2/);
    expect(graph.code).toBe(0);
    const missing = await panoptes(ROOT, 'graph', '--module', 'nowhere.mjs', WORKFLOW);
    expect(missing.stderr).toMatch(/^--module: nowhere\.mjs error cannot import the module: Cannot find module .*nowhere\.mjs/);
    expect(missing.code).toBe(1);
  });

  it('--help of each command lists --module', async () => {
    for (const command of ['validate', 'info', 'graph', 'audit', 'test', 'serve']) {
      const { stdout } = await panoptes(ROOT, command, '--help');
      expect(stdout, command).toMatch(/--module <file>\s+a JS module whose constraint types, strategies and tiers/);
    }
  });
});

describe('panoptes serve with modules: in the config', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    // An agent that answers a lookup's result, and looks the order up again on each question.
    upstream = await startFakeUpstream((body) =>
      body.messages.at(-1)!.role === 'tool' ? { content: 'here is your order: shipped' } : { content: '', toolCalls: [{ id: `call_${body.messages.length}`, name: 'lookup_order', args: { id: 'A1' } }] },
    );
  });
  afterAll(() => upstream.close());

  it('loads the workflow with the module: the custom type counts the lookups, the custom strategy speaks upstream', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--config', `${FIXTURES}/panoptes.yaml`, '--upstream', upstream.url, '--port', '0'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    try {
      const url = await listeningUrl(child);
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', defaultHeaders: { 'x-panoptes-session-id': 'module-serve' } });
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'hello, where is my order?' }];
      // Lookups at turns 0, 2 and 4: the third breaks max_count (max 2), so the next call carries the strategy's note.
      for (let turn = 0; turn < 6; turn++) {
        const { message } = (await client.chat.completions.create({ model: 'x', messages })).choices[0]!;
        messages.push(message);
        const call = message.tool_calls?.[0];
        messages.push(call ? { role: 'tool', tool_call_id: call.id, content: '{"status":"shipped"}' } : { role: 'user', content: 'and again?' });
      }
      const notes = upstream.requests.map(({ body }) => body!.messages.filter((message) => String(message.content).startsWith('[Ops]')).length);
      expect(notes).toEqual([0, 0, 0, 0, 0, 1]);
      expect(upstream.requests[5]!.body!.messages.at(-1)).toEqual({ role: 'user', content: '[Ops] Stop looking the order up.' });
    } finally {
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    }
  });
});

/** The URL a `serve` child prints once it accepts connections. */
function listeningUrl(child: ChildProcessWithoutNullStreams): Promise<string> {
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (data: Buffer) => {
      stdout += data.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${stderr}`)));
  });
}
