/** `panoptes serve`'s semantic tier keys: `embeddings:` and `loops:` as a section, from the file and PANOPTES_* variables. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROXY_CONFIG } from '../../src/cli/init/proxy.js';
import { loadServeConfig } from '../../src/proxy/config.js';
import { startServe } from '../../src/proxy/serve.js';
import { SUPPORT_WORKFLOW, quietLogger } from './helpers.js';
import { configFile, errorOf } from './config-helpers.js';

const HEAD = 'upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\n';
const KEY = 'sk-embeddings-0123456789';

/** A folder laid out as a transformers.js model (files present, contents not a model). */
function modelFolder(): string {
  const root = mkdtempSync(join(tmpdir(), 'panoptes-model-'));
  const model = join(root, 'Xenova', 'all-MiniLM-L6-v2');
  mkdirSync(join(model, 'onnx'), { recursive: true });
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) writeFileSync(join(model, file), '{}');
  writeFileSync(join(model, 'onnx', 'model.onnx'), 'not an onnx graph');
  return root;
}

const FULL_LOOPS = [
  'loops:',
  '  enabled: true',
  '  threshold: 0.9',
  '  window: 8',
  '  ttl_ms: 600000',
  '  timeout_ms: 80',
  '  long_window: 500',
  '  max_sessions: 2000',
  '  hint: "You seem to be repeating similar requests."',
  '  stronger_hint: "Stop repeating yourself."',
  '  stop_message: "Stopped: the agent kept repeating itself."',
  '  stronger_hint_at: 2',
  '  stop_at: 4',
  '  repeated_action: 5',
  '  repeated_error: false',
  '  monologue: 4',
  '  alternation: 8',
  '  repeated_line: 6',
  '  unchanged_result: 3',
  '  exempt_tools: [check_status]',
  '  ignore_keys: [requestId]',
].join('\n');

const FULL_LOOP_OPTIONS = {
  threshold: 0.9,
  window: 8,
  ttlMs: 600_000,
  timeoutMs: 80,
  longWindow: { size: 500 },
  maxSessions: 2000,
  hint: 'You seem to be repeating similar requests.',
  strongerHint: 'Stop repeating yourself.',
  stopMessage: 'Stopped: the agent kept repeating itself.',
  escalation: { strongerHintAt: 2, stopAt: 4 },
  repeatedAction: 5,
  repeatedError: false,
  monologue: 4,
  alternation: 8,
  repeatedLine: 6,
  unchangedResult: 3,
  exemptTools: ['check_status'],
  ignoreKeys: ['requestId'],
};

describe('embeddings: and loops: in the serve configuration', () => {
  it('reads every key of both sections from the file', async () => {
    const path = configFile(`${HEAD}embeddings:\n  provider: openai\n  url: http://127.0.0.1:8080/v1/embeddings\n  model: text-embedding-3-small\n  api_key: ${KEY}\n  dimensions: 256\n  timeout_ms: 200\n  warm_up_timeout_ms: 5000\n  cache_size: 50\n${FULL_LOOPS}\n`);
    const config = await loadServeConfig({ configPath: path, env: {} });
    expect(config.embeddings).toEqual({ provider: 'openai', url: 'http://127.0.0.1:8080/v1/embeddings', model: 'text-embedding-3-small', apiKey: KEY, dimensions: 256, timeoutMs: 200, warmUpTimeoutMs: 5000, cacheSize: 50 });
    expect(config.loops).toBe(true);
    expect(config.loopOptions).toEqual(FULL_LOOP_OPTIONS);
  });

  it('reads every key from PANOPTES_EMBEDDINGS__* and PANOPTES_LOOPS__* variables, over the file', async () => {
    const path = configFile(`${HEAD}embeddings:\n  provider: lexical\n`);
    const env = {
      PANOPTES_EMBEDDINGS__PROVIDER: 'openai',
      PANOPTES_EMBEDDINGS__URL: 'https://embed.example/v1/embeddings',
      PANOPTES_EMBEDDINGS__MODEL: 'm',
      PANOPTES_EMBEDDINGS__API_KEY: KEY,
      PANOPTES_EMBEDDINGS__DIMENSIONS: '64',
      PANOPTES_EMBEDDINGS__TIMEOUT_MS: '120',
      PANOPTES_EMBEDDINGS__WARM_UP_TIMEOUT_MS: '9000',
      PANOPTES_EMBEDDINGS__CACHE_SIZE: '10',
      PANOPTES_LOOPS__ENABLED: 'true',
      PANOPTES_LOOPS__THRESHOLD: '0.9',
      PANOPTES_LOOPS__WINDOW: '8',
      PANOPTES_LOOPS__TTL_MS: '600000',
      PANOPTES_LOOPS__TIMEOUT_MS: '80',
      PANOPTES_LOOPS__LONG_WINDOW: '500',
      PANOPTES_LOOPS__MAX_SESSIONS: '2000',
      PANOPTES_LOOPS__HINT: 'You seem to be repeating similar requests.',
      PANOPTES_LOOPS__STRONGER_HINT: 'Stop repeating yourself.',
      PANOPTES_LOOPS__STOP_MESSAGE: 'Stopped: the agent kept repeating itself.',
      PANOPTES_LOOPS__STRONGER_HINT_AT: '2',
      PANOPTES_LOOPS__STOP_AT: '4',
      PANOPTES_LOOPS__REPEATED_ACTION: '5',
      PANOPTES_LOOPS__REPEATED_ERROR: 'false',
      PANOPTES_LOOPS__MONOLOGUE: '4',
      PANOPTES_LOOPS__ALTERNATION: '8',
      PANOPTES_LOOPS__REPEATED_LINE: '6',
      PANOPTES_LOOPS__UNCHANGED_RESULT: '3',
      PANOPTES_LOOPS__EXEMPT_TOOLS: 'check_status',
      PANOPTES_LOOPS__IGNORE_KEYS: 'requestId',
    };
    const config = await loadServeConfig({ configPath: path, env });
    expect(config.embeddings).toEqual({ provider: 'openai', url: 'https://embed.example/v1/embeddings', model: 'm', apiKey: KEY, dimensions: 64, timeoutMs: 120, warmUpTimeoutMs: 9000, cacheSize: 10 });
    expect(config.loops).toBe(true);
    expect(config.loopOptions).toEqual(FULL_LOOP_OPTIONS);
  });

  it('keeps loops: true|false and PANOPTES_LOOPS working; a section turns detection on unless enabled: false', async () => {
    const on = await loadServeConfig({ configPath: configFile(`${HEAD}loops: true\n`), env: {} });
    expect(on).toMatchObject({ loops: true });
    expect(on.loopOptions).toBeUndefined();
    expect(on.embeddings).toBeUndefined();
    expect((await loadServeConfig({ configPath: configFile(`${HEAD}loops: false\n`), env: {} })).loops).toBe(false);
    expect((await loadServeConfig({ configPath: configFile(HEAD), env: {} })).loops).toBe(false);
    const section = configFile(`${HEAD}loops:\n  threshold: 0.9\n`);
    expect(await loadServeConfig({ configPath: section, env: {} })).toMatchObject({ loops: true, loopOptions: { threshold: 0.9 } });
    expect((await loadServeConfig({ configPath: section, env: { PANOPTES_LOOPS__ENABLED: 'false' } })).loops).toBe(false);
    expect((await loadServeConfig({ configPath: configFile(`${HEAD}loops:\n  enabled: false\n  window: 3\n`), env: {} })).loops).toBe(false);
    expect((await loadServeConfig({ configPath: configFile(HEAD), env: { PANOPTES_LOOPS: 'true' } })).loops).toBe(true);
    expect((await loadServeConfig({ configPath: configFile(HEAD), env: {}, flags: { loops: true } })).loops).toBe(true);
  });

  it('reads the semantic tier that panoptes init --host proxy writes commented out, once uncommented', async () => {
    const uncommented = PROXY_CONFIG.replace(/^# (embeddings:|  provider:|loops:|  threshold:|  window:)/gm, '$1').replace('workflow: workflow.yaml', 'workflow: support.yaml');
    const config = await loadServeConfig({ configPath: configFile(uncommented), env: {} });
    expect(config).toMatchObject({ embeddings: { provider: 'lexical' }, loops: true, loopOptions: { threshold: 0.95, window: 5 } });
  });

  it('defaults the embedding budgets and reads the lexical provider alone', async () => {
    const config = await loadServeConfig({ configPath: configFile(`${HEAD}embeddings:\n  provider: lexical\n`), env: {} });
    expect(config.embeddings).toEqual({ provider: 'lexical', timeoutMs: 50, warmUpTimeoutMs: 30_000, cacheSize: 1000 });
    expect(config.loops).toBe(false);
  });

  it('explains a loops: or embeddings: of the wrong shape at its line', async () => {
    const list = configFile(`${HEAD}loops: [threshold, 0.9]\n`);
    expect(await errorOf(loadServeConfig({ configPath: list, env: {} }))).toContain(`${list}:3:8 error loops: a list, not a switch or a section: received ["threshold",0.9]; expected true, false, or a section of loop settings`);
    const word = configFile(`${HEAD}loops: sometimes\n`);
    expect(await errorOf(loadServeConfig({ configPath: word, env: {} }))).toContain(`${word}:3:8 error loops: not a boolean: received "sometimes"; expected true, false, or a section of loop settings`);
    const scalar = configFile(`${HEAD}embeddings: openai\n`);
    expect(await errorOf(loadServeConfig({ configPath: scalar, env: {} }))).toContain(`${scalar}:3:13 error embeddings: 'embeddings' must be a section of keys: received "openai"; write it as 'embeddings:' followed by indented keys (provider, url, model, api_key, dimensions, model_path, quantized, timeout_ms, warm_up_timeout_ms, cache_size)`);
  });

  it('reports each bad value with its line, the key, the value and the fix', async () => {
    const path = configFile(`${HEAD}embeddings:\n  provider: sentence-bert\n  timeout_ms: -5\nloops:\n  threshold: 1.5\n  window: 0\n  repeated_action: 1\n  treshold: 0.9\n`);
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toContain(`${path}:4:13 error embeddings.provider: not a known provider: received "sentence-bert"; expected lexical (built in, near-verbatim repeats only), transformers (a local model folder) or openai (an OpenAI-compatible /v1/embeddings endpoint)`);
    expect(message).toContain(`${path}:5:15 error embeddings.timeout_ms: out of range: received -5; expected a positive whole number`);
    expect(message).toContain(`${path}:7:14 error loops.threshold: out of range: received 1.5; expected a cosine similarity above 0 and at most 1, such as 0.95`);
    expect(message).toContain(`${path}:8:11 error loops.window: out of range: received 0; expected a positive whole number`);
    expect(message).toContain(`${path}:9:20 error loops.repeated_action: out of range: received 1; expected a whole number of at least 2, or false to turn this check off`);
    expect(message).toContain(`${path}:10:3 error loops.treshold: unknown key 'loops.treshold'; did you mean 'loops.threshold'?`);
  });

  it('names the variable of a bad or misspelt value', async () => {
    const message = await errorOf(loadServeConfig({ configPath: configFile(HEAD), env: { PANOPTES_LOOPS__THRESHOLD: 'high', PANOPTES_LOOPS__TRESHOLD: '0.9', PANOPTES_EMBEDDINGS__PROVDER: 'lexical', PANOPTES_LOOPS: 'maybe' } }));
    expect(message).toContain('environment error PANOPTES_LOOPS__THRESHOLD: not a number: received "high"; expected a cosine similarity above 0 and at most 1');
    expect(message).toContain('environment error PANOPTES_LOOPS__TRESHOLD: unknown variable PANOPTES_LOOPS__TRESHOLD; did you mean PANOPTES_LOOPS__THRESHOLD?');
    expect(message).toContain('environment error PANOPTES_EMBEDDINGS__PROVDER: unknown variable PANOPTES_EMBEDDINGS__PROVDER; did you mean PANOPTES_EMBEDDINGS__PROVIDER?');
    expect(message).toContain('environment error PANOPTES_LOOPS: not a boolean: received "maybe"');
  });

  it('requires what a provider needs, and refuses keys of another provider, at their lines', async () => {
    const noProvider = configFile(`${HEAD}embeddings:\n  url: http://127.0.0.1:8080/v1/embeddings\n`);
    expect(await errorOf(loadServeConfig({ configPath: noProvider, env: {} }))).toContain(`${noProvider} error embeddings.provider: 'embeddings.provider' is required with embeddings.url; set provider: lexical, transformers or openai under 'embeddings:' (or PANOPTES_EMBEDDINGS__PROVIDER)`);
    const bare = configFile(`${HEAD}embeddings:\n  provider: openai\n`);
    const missing = await errorOf(loadServeConfig({ configPath: bare, env: {} }));
    expect(missing).toContain(`${bare}:4:13 error embeddings.url: 'embeddings.url' is required with provider openai; set url: (or PANOPTES_EMBEDDINGS__URL) to the URL of an OpenAI-compatible embeddings endpoint`);
    expect(missing).toContain(`${bare}:4:13 error embeddings.model: 'embeddings.model' is required with provider openai`);
    const mixed = configFile(`${HEAD}embeddings:\n  provider: lexical\n  url: http://127.0.0.1:8080/v1/embeddings\n`);
    expect(await errorOf(loadServeConfig({ configPath: mixed, env: {} }))).toContain(`${mixed}:5:8 error embeddings.url: embeddings.url does not apply to provider lexical; it is read for provider openai; remove it or change embeddings.provider`);
    const notEmbeddings = configFile(`${HEAD}embeddings:\n  provider: openai\n  url: http://127.0.0.1:8080/v1/chat/completions\n  model: m\n`);
    expect(await errorOf(loadServeConfig({ configPath: notEmbeddings, env: {} }))).toContain(`${notEmbeddings}:5:8 error embeddings.url: not an embeddings endpoint (the path must end in /embeddings)`);
  });

  it('refuses loop settings the loop detector would refuse, at their keys', async () => {
    const longWithout = configFile(`${HEAD}loops:\n  long_window: 100\n`);
    expect(await errorOf(loadServeConfig({ configPath: longWithout, env: {} }))).toContain(`${longWithout}:4:16 error loops.long_window: loops.long_window is refused by the loop detector: received 100; the long window compares embeddings: set embeddings.provider too, or drop loops.long_window`);
    const order = configFile(`${HEAD}loops:\n  stronger_hint_at: 4\n  stop_at: 3\n`);
    expect(await errorOf(loadServeConfig({ configPath: order, env: {} }))).toContain(`${order}:5:12 error loops.stop_at: loops.stop_at is refused by the loop detector: received 3; Pass a number no smaller than escalation.strongerHintAt (4).`);
  });

  it('never prints the API key, nor a password in the endpoint', async () => {
    const path = configFile(`${HEAD}embeddings:\n  provider: openai\n  url: http://user:pw-secret@127.0.0.1:8080/v1/embeddings\n  model: m\n  api_key: [${KEY}]\n`);
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toContain(`${path}:7:12 error embeddings.api_key: not a non-empty string: received 1 value(s) (${KEY.length} characters; not shown)`);
    expect(message).toContain(`${path}:5:8 error embeddings.url: credentials in the URL (put the key in embeddings.api_key): received "http://***@127.0.0.1:8080/v1/embeddings"`);
    expect(message).not.toContain(KEY);
    expect(message).not.toContain('pw-secret');
  });

  describe('provider transformers (no model is downloaded here: a folder laid out as one stands in)', () => {
    it('requires model_path, and reports a folder that is missing or holds no model at its line', async () => {
      const none = configFile(`${HEAD}embeddings:\n  provider: transformers\n`);
      expect(await errorOf(loadServeConfig({ configPath: none, env: {} }))).toContain(`${none}:4:13 error embeddings.model_path: 'embeddings.model_path' is required with provider transformers; set model_path: (or PANOPTES_EMBEDDINGS__MODEL_PATH) to the folder of a local sentence-embedding model`);
      const missing = configFile(`${HEAD}embeddings:\n  provider: transformers\n  model_path: models\n`);
      expect(await errorOf(loadServeConfig({ configPath: missing, env: {} }))).toContain(`${missing}:5:15 error embeddings.model_path: no such folder (${join(missing, '..', 'models')}): received "models"`);
      const empty = configFile(`${HEAD}embeddings:\n  provider: transformers\n  model_path: .\n`);
      expect(await errorOf(loadServeConfig({ configPath: empty, env: {} }))).toContain(`${empty}:5:15 error embeddings.model_path: no usable model in ${join(empty, '..', 'Xenova', 'all-MiniLM-L6-v2')}: config.json, tokenizer.json, onnx/model.onnx missing; the folder must hold config.json, tokenizer.json and onnx/model.onnx`);
      const root = modelFolder();
      const quantized = await errorOf(loadServeConfig({ configPath: configFile(HEAD), env: { PANOPTES_EMBEDDINGS__PROVIDER: 'transformers', PANOPTES_EMBEDDINGS__MODEL_PATH: root, PANOPTES_EMBEDDINGS__QUANTIZED: 'true' } }));
      expect(quantized).toContain(`environment error PANOPTES_EMBEDDINGS__MODEL_PATH: no usable model in ${join(root, 'Xenova', 'all-MiniLM-L6-v2')}: onnx/model_quantized.onnx missing`);
    });

    it('takes the folder above the model or the model folder itself', async () => {
      const root = modelFolder();
      const above = await loadServeConfig({ configPath: configFile(HEAD), env: { PANOPTES_EMBEDDINGS__PROVIDER: 'transformers', PANOPTES_EMBEDDINGS__MODEL_PATH: root } });
      expect(above.embeddings).toEqual({ provider: 'transformers', localModelPath: root, model: 'Xenova/all-MiniLM-L6-v2', quantized: false, timeoutMs: 50, warmUpTimeoutMs: 30_000, cacheSize: 1000 });
      const own = await loadServeConfig({ configPath: configFile(HEAD), env: { PANOPTES_EMBEDDINGS__PROVIDER: 'transformers', PANOPTES_EMBEDDINGS__MODEL_PATH: join(root, 'Xenova', 'all-MiniLM-L6-v2') } });
      expect(own.embeddings).toMatchObject({ localModelPath: join(root, 'Xenova'), model: 'all-MiniLM-L6-v2' });
    });

    it('stops the start with a clear message when the model does not load', async () => {
      const root = modelFolder();
      const config = await loadServeConfig({ env: { PANOPTES_EMBEDDINGS__PROVIDER: 'transformers', PANOPTES_EMBEDDINGS__MODEL_PATH: root }, flags: { upstream: 'http://127.0.0.1:9/v1', workflow: SUPPORT_WORKFLOW, port: '0' } });
      const error = (await startServe(config, { logger: quietLogger() }).catch((caught: unknown) => caught)) as Error;
      expect(error.name).toBe('EmbeddingModelLoadError');
      expect(error.message).toMatch(new RegExp(`^cannot load the embedding model 'Xenova/all-MiniLM-L6-v2' from ${root.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .+ embeddings\\.model_path takes the model folder`, 's'));
    }, 60_000);
  });
});
