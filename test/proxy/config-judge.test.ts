/** `panoptes serve`'s `judge:` section: read from the file and PANOPTES_JUDGE__* variables; every bad input refused at load with its place and fix. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServeConfig } from '../../src/proxy/config.js';
import { configFile, errorOf } from './config-helpers.js';
import { RUBRICS } from './judge-helpers.js';

const SUPPORT_RUBRICS = fileURLToPath(new URL('../../examples/rubrics/support.rubrics.yaml', import.meta.url));
const HEAD = 'upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\n';

/** A config file with `judge` (the section's text) beside the test rubrics and any `files` given. */
function judgeConfig(judge: string, files: Record<string, string> = {}): string {
  const path = configFile(`${HEAD}${judge}`);
  writeFileSync(join(dirname(path), 'mail.rubrics.yaml'), RUBRICS);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dirname(path), name), text);
  return path;
}

const ENDPOINT = 'judge:\n  rubrics: mail.rubrics.yaml\n  model:\n    base_url: http://127.0.0.1:9000/v1\n    model: judge-mini\n    api_key_env: JUDGE_KEY\n';
const CASSETTE = JSON.stringify({ modelId: 'judge-mini', entries: {} });

describe('the judge: section', () => {
  it('reads every key from the file', async () => {
    const path = judgeConfig(`${ENDPOINT}  timeout_ms: 2000\n  concurrency: 2\n  budget:\n    session: { calls: 20, tokens: 50000 }\n    process:\n      calls: 1000\n      tokens: 2000000\n`);
    const config = await loadServeConfig({ configPath: path, env: { JUDGE_KEY: 'sk-judge' } });
    expect(config.judge).toMatchObject({
      rubricsPath: join(dirname(path), 'mail.rubrics.yaml'),
      model: { kind: 'endpoint', baseUrl: 'http://127.0.0.1:9000/v1', model: 'judge-mini', apiKeyEnv: 'JUDGE_KEY' },
      timeoutMs: 2000,
      concurrency: 2,
      budget: { session: { calls: 20, tokens: 50_000 }, process: { calls: 1000, tokens: 2_000_000 } },
    });
    expect(config.judge!.rubrics.map((rubric) => rubric.id)).toEqual(['outgoing_mail', 'no_amount']);
    // The key is read at start from its variable, never kept in the configuration.
    expect(JSON.stringify(config)).not.toContain('sk-judge');
  });

  it('reads a cassette, and every key from PANOPTES_JUDGE__* variables over the file', async () => {
    const path = judgeConfig('judge:\n  rubrics: nowhere.yaml\n  cassette: judge.cassette.json\n', { 'judge.cassette.json': CASSETTE, 'other.rubrics.yaml': RUBRICS.replace('on_error: deny', 'on_error: ask') });
    const config = await loadServeConfig({
      configPath: path,
      env: { PANOPTES_JUDGE__RUBRICS: join(dirname(path), 'other.rubrics.yaml'), PANOPTES_JUDGE__TIMEOUT_MS: '500', PANOPTES_JUDGE__CONCURRENCY: '3', PANOPTES_JUDGE__BUDGET__SESSION__CALLS: '5', PANOPTES_JUDGE__BUDGET__PROCESS__TOKENS: '900' },
    });
    expect(config.judge).toMatchObject({ model: { kind: 'cassette', cassette: { modelId: 'judge-mini', entries: {} } }, timeoutMs: 500, concurrency: 3, budget: { session: { calls: 5 }, process: { tokens: 900 } } });
    expect(config.judge!.rubrics[0]!.onError).toBe('ask');
    const endpoint = await loadServeConfig({ configPath: configFile(HEAD), env: { PANOPTES_JUDGE__RUBRICS: join(dirname(path), 'mail.rubrics.yaml'), PANOPTES_JUDGE__MODEL__BASE_URL: 'https://judge.example/v1/', PANOPTES_JUDGE__MODEL__MODEL: 'm' } });
    expect(endpoint.judge!.model).toEqual({ kind: 'endpoint', baseUrl: 'https://judge.example/v1', model: 'm' });
  });

  it('no judge: section, no judge', async () => {
    expect((await loadServeConfig({ configPath: configFile(HEAD), env: {} })).judge).toBeUndefined();
  });

  it('a rubric file that does not exist, at the key that names it', async () => {
    const message = await errorOf(loadServeConfig({ configPath: judgeConfig('judge:\n  rubrics: missing.yaml\n  cassette: c.json\n', { 'c.json': CASSETTE }), env: {} }));
    expect(message).toMatch(/panoptes\.yaml:4:12 error judge\.rubrics: no such file \(.*missing\.yaml\); check the path of the rubric file; expected the path of a rubric file/);
  });

  it("a rubric file's own errors, with its file, line and field", async () => {
    const path = judgeConfig('judge:\n  rubrics: bad.rubrics.yaml\n  cassette: c.json\n', { 'c.json': CASSETTE, 'bad.rubrics.yaml': RUBRICS.replace('scope: turn', 'scope: turns') });
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toMatch(/bad\.rubrics\.yaml:14:12 error rubrics\[1\]\.scope: .*"turns".*did you mean 'turn'\?/);
  });

  it('the support example, with its conversation rubric, loads', async () => {
    const path = judgeConfig(`judge:\n  rubrics: ${SUPPORT_RUBRICS}\n  cassette: c.json\n`, { 'c.json': CASSETTE });
    const config = await loadServeConfig({ configPath: path, env: {} });
    expect(config.judge!.rubrics.map((rubric) => [rubric.id, rubric.scope, rubric.everyTurns, rubric.sample])).toEqual([
      ['no_refund_promise', 'turn', 1, 1],
      ['on_topic', 'conversation', 5, 0.2],
    ]);
  });

  it('every_turns on a rubric that is not of conversation scope, at its line', async () => {
    const path = judgeConfig('judge:\n  rubrics: turns.rubrics.yaml\n  cassette: c.json\n', { 'c.json': CASSETTE, 'turns.rubrics.yaml': RUBRICS.replace('    scope: turn\n', '    scope: turn\n    every_turns: 3\n') });
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toMatch(/turns\.rubrics\.yaml:15:\d+ error rubrics\[1\]\.every_turns: every_turns applies to conversation scope, not turn; remove every_turns, or set scope: conversation/);
  });

  it('every_turns below 1 and sample above 1 on a conversation rubric, at their lines', async () => {
    const conversation = RUBRICS.replace('    scope: turn\n', '    scope: conversation\n    every_turns: 0\n    sample: 1.5\n');
    const path = judgeConfig('judge:\n  rubrics: conversation.rubrics.yaml\n  cassette: c.json\n', { 'c.json': CASSETTE, 'conversation.rubrics.yaml': conversation });
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toMatch(/conversation\.rubrics\.yaml:15:\d+ error rubrics\[1\]\.every_turns: expected a number >= 1, got 0/);
    expect(message).toMatch(/conversation\.rubrics\.yaml:16:\d+ error rubrics\[1\]\.sample: expected a number <= 1, got 1\.5/);
  });

  it('neither a model nor a cassette', async () => {
    const message = await errorOf(loadServeConfig({ configPath: judgeConfig('judge:\n  rubrics: mail.rubrics.yaml\n'), env: {} }));
    expect(message).toContain("error judge: the judge needs 'judge.model' or 'judge.cassette'; add model: { base_url:");
  });

  it('both a model and a cassette', async () => {
    const message = await errorOf(loadServeConfig({ configPath: judgeConfig(`${ENDPOINT}  cassette: c.json\n`, { 'c.json': CASSETTE }), env: { JUDGE_KEY: 'k' } }));
    expect(message).toMatch(/panoptes\.yaml:6:15 error judge\.model\.base_url: judge\.model and judge\.cassette are both set; the judge replays a cassette \(offline, tests\) or asks a model: keep one of them/);
  });

  it('no rubrics', async () => {
    const message = await errorOf(loadServeConfig({ configPath: judgeConfig('judge:\n  cassette: c.json\n', { 'c.json': CASSETTE }), env: {} }));
    expect(message).toContain("error judge.rubrics: 'judge.rubrics' is required in the judge section; set rubrics: (or PANOPTES_JUDGE__RUBRICS)");
  });

  it('a model without its name, or its base URL', async () => {
    const noName = await errorOf(loadServeConfig({ configPath: judgeConfig('judge:\n  rubrics: mail.rubrics.yaml\n  model:\n    base_url: http://127.0.0.1:9000/v1\n'), env: {} }));
    expect(noName).toMatch(/panoptes\.yaml:6:15 error judge\.model\.base_url: 'judge\.model\.model' is required with judge\.model; set model: \(or PANOPTES_JUDGE__MODEL__MODEL\)/);
    const noUrl = await errorOf(loadServeConfig({ configPath: judgeConfig('judge:\n  rubrics: mail.rubrics.yaml\n  model:\n    model: m\n'), env: {} }));
    expect(noUrl).toContain("'judge.model.base_url' is required with judge.model; set base_url: (or PANOPTES_JUDGE__MODEL__BASE_URL) to the base URL of an OpenAI-compatible API");
  });

  it('a base URL that is not one: no URL, credentials in it, the endpoint itself', async () => {
    const bad = (url: string) => errorOf(loadServeConfig({ configPath: judgeConfig(ENDPOINT.replace('http://127.0.0.1:9000/v1', url)), env: { JUDGE_KEY: 'k' } }));
    expect(await bad('judge-host')).toMatch(/panoptes\.yaml:6:15 error judge\.model\.base_url: not a URL: received "judge-host"; expected the base URL of an OpenAI-compatible API/);
    expect(await bad('http://user:secret@judge.example/v1')).toContain('credentials in the URL (name the variable that holds the key in judge.model.api_key_env): received "http://***@judge.example/v1"');
    expect(await bad('http://judge.example/v1/chat/completions')).toContain('the URL of the endpoint itself, not its base');
  });

  it('an API key variable that is not set, or not a variable name', async () => {
    const unset = await errorOf(loadServeConfig({ configPath: judgeConfig(ENDPOINT), env: {} }));
    expect(unset).toMatch(/panoptes\.yaml:8:18 error judge\.model\.api_key_env: the variable JUDGE_KEY is not set: received "JUDGE_KEY"; export JUDGE_KEY=<the judge endpoint's API key> before starting the proxy/);
    const key = await errorOf(loadServeConfig({ configPath: judgeConfig(ENDPOINT.replace('api_key_env: JUDGE_KEY', 'api_key_env: sk-123')), env: {} }));
    expect(key).toContain('judge.model.api_key_env: not the name of an environment variable');
  });

  it('a cassette that does not exist, is not JSON, or is not a cassette', async () => {
    const at = (files: Record<string, string>) => errorOf(loadServeConfig({ configPath: judgeConfig('judge:\n  rubrics: mail.rubrics.yaml\n  cassette: c.json\n', files), env: {} }));
    expect(await at({})).toMatch(/panoptes\.yaml:5:13 error judge\.cassette: no such file \(.*c\.json\); check the path of the cassette/);
    expect(await at({ 'c.json': '{ nope' })).toMatch(/judge\.cassette: the cassette .*c\.json is not JSON: .*; expected the path of a judge cassette/);
    expect(await at({ 'c.json': '{"entries": []}' })).toContain('is not a judge cassette (it needs modelId and entries of { answer })');
  });

  it('timeouts, concurrency and budgets out of range, from the file and the environment', async () => {
    const path = judgeConfig('judge:\n  rubrics: mail.rubrics.yaml\n  cassette: c.json\n  timeout_ms: 60000\n  concurrency: 0\n  budget:\n    session:\n      calls: -1\n', { 'c.json': CASSETTE });
    const message = await errorOf(loadServeConfig({ configPath: path, env: { PANOPTES_JUDGE__BUDGET__PROCESS__TOKENS: 'lots' } }));
    expect(message).toContain('panoptes.yaml:6:15 error judge.timeout_ms: out of range: received 60000; expected a whole number of milliseconds from 1 to 25000');
    expect(message).toContain('panoptes.yaml:7:16 error judge.concurrency: out of range: received 0; expected a positive whole number');
    expect(message).toContain('panoptes.yaml:10:14 error judge.budget.session.calls: out of range: received -1');
    expect(message).toContain('environment error PANOPTES_JUDGE__BUDGET__PROCESS__TOKENS: not a whole number: received "lots"');
  });

  it('unknown keys and variables, with the key meant', async () => {
    const message = await errorOf(loadServeConfig({ configPath: judgeConfig('judge:\n  rubrics: mail.rubrics.yaml\n  cassette: c.json\n  timeout: 100\n  model: gpt-4o\n', { 'c.json': CASSETTE }), env: { PANOPTES_JUDGE__TIMEOUTMS: '5' } }));
    expect(message).toContain("panoptes.yaml:6:3 error judge.timeout: unknown key 'judge.timeout'; did you mean 'judge.timeout_ms'?");
    expect(message).toContain("panoptes.yaml:7:10 error judge.model: 'judge.model' must be a section of keys: received \"gpt-4o\"; write it as 'model:' followed by indented keys (base_url, model, api_key_env)");
    expect(message).toContain('environment error PANOPTES_JUDGE__TIMEOUTMS: unknown variable PANOPTES_JUDGE__TIMEOUTMS; did you mean PANOPTES_JUDGE__TIMEOUT_MS?');
  });
});

describe('the example proxy configuration', () => {
  it("loads with its judge: section uncommented", async () => {
    const example = fileURLToPath(new URL('../../examples/proxy/panoptes.yaml', import.meta.url));
    const text = readFileSync(example, 'utf8').replace(/^# (judge:|  rubrics:|  model:|    base_url:|    model:|    api_key_env:|  timeout_ms:|  budget:|    session:)/gm, '$1');
    const copy = join(dirname(example), `.judge-example-${process.pid}.yaml`);
    writeFileSync(copy, text);
    try {
      const config = await loadServeConfig({ configPath: copy, env: { OPENAI_API_KEY: 'sk-test' } });
      expect(config.judge).toMatchObject({ model: { kind: 'endpoint', model: 'gpt-4o-mini', apiKeyEnv: 'OPENAI_API_KEY' }, timeoutMs: 10_000, budget: { session: { calls: 20 } } });
      expect(config.judge!.rubrics.map((rubric) => rubric.id)).toEqual(['outgoing_mail']);
    } finally {
      rmSync(copy);
    }
  });
});
