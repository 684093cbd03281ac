/**
 * The `judge:` section of `panoptes serve`'s configuration: the rubric file the proxy judges tool calls, responses and
 * conversations with, the judge's model (an OpenAI-compatible chat endpoint, or a recorded cassette for offline runs
 * and tests), and its bounds (timeout, concurrency, budget). Read and reported with the other keys; the rubric file's
 * own errors come with its file, line and column, as `panoptes validate` prints them.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Diagnostic } from '../../diagnostics/index.js';
import { readFailureDiagnostic } from '../../diagnostics/read-failure.js';
import { validateRubrics, type Cassette, type Rubric } from '../../judge/index.js';
import { DEFAULT_GUARD_TIMEOUT_MS } from '../../monitor/defaults.js';
import { httpUrl, type CheckedValue, type CheckResult, type CustomCheck, type Origin } from './field.js';

/** The judge's model: an OpenAI-compatible chat endpoint, or recorded verdicts. */
export type ServeJudgeModel =
  | {
      kind: 'endpoint';
      /** Base URL, `/v1` included: the judge posts to `<baseUrl>/chat/completions`. */
      baseUrl: string;
      model: string;
      /** The environment variable that holds the API key (read at start; never kept in the configuration). */
      apiKeyEnv?: string;
    }
  | { kind: 'cassette'; path: string; cassette: Cassette };

/** The checked `judge:` section. */
export interface ServeJudgeConfig {
  /** Absolute path of the rubric file. */
  rubricsPath: string;
  rubrics: Rubric[];
  model: ServeJudgeModel;
  timeoutMs?: number;
  concurrency?: number;
  budget?: { session?: { calls?: number; tokens?: number }; process?: { calls?: number; tokens?: number } };
}

/**
 * Longest a judgment may take: under the monitor's own bound on a tool guard (30 s), so a slow judge ends in the
 * rubric's `on_error` rather than in the guard's timeout, which refuses the call whatever `on_error` says.
 */
export const MAX_SERVE_JUDGE_TIMEOUT_MS = DEFAULT_GUARD_TIMEOUT_MS - 5_000;

const rubricsFile: CustomCheck = {
  check(value, origin: Origin): CheckResult {
    if (typeof value !== 'string' || value === '') return { problem: 'not a file path' };
    return { value: resolve(origin.base, value) };
  },
  expected: 'the path of a rubric file (rubrics: or policy:, see docs/judge.md), relative to the config file',
};

const cassetteFile: CustomCheck = {
  check(value, origin: Origin): CheckResult {
    if (typeof value !== 'string' || value === '') return { problem: 'not a file path' };
    return { value: resolve(origin.base, value) };
  },
  expected: 'the path of a judge cassette (JSON written by `panoptes judge record`), relative to the config file',
};

const endpointUrl: CustomCheck = {
  check(value) {
    const parsed = httpUrl(value, 'name the variable that holds the key in judge.model.api_key_env');
    if ('problem' in parsed) return parsed;
    const { url } = parsed;
    if (/\/chat\/completions\/?$/.test(url.pathname)) return { problem: 'the URL of the endpoint itself, not its base' };
    return { value: (value as string).replace(/\/+$/, '') };
  },
  expected: 'the base URL of an OpenAI-compatible API, /v1 included (the judge posts to <base_url>/chat/completions), e.g. http://127.0.0.1:8000/v1',
};

const envName: CustomCheck = {
  check: (value) => (typeof value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value) ? { value } : { problem: 'not the name of an environment variable' }),
  expected: 'the name of the environment variable that holds the API key, such as OPENAI_API_KEY (the key itself is never written in the config)',
};

const timeout: CustomCheck = {
  check(value) {
    const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number)) return { problem: 'not a whole number' };
    return number > 0 && number <= MAX_SERVE_JUDGE_TIMEOUT_MS ? { value: number } : { problem: 'out of range' };
  },
  expected: `a whole number of milliseconds from 1 to ${MAX_SERVE_JUDGE_TIMEOUT_MS} (a tool guard is bounded at ${DEFAULT_GUARD_TIMEOUT_MS}; the default is 10000)`,
};

/** The judge's keys, by dotted name. */
export const JUDGE_FIELDS = {
  'judge.rubrics': { kind: 'custom', custom: rubricsFile, env: 'PANOPTES_JUDGE__RUBRICS' },
  'judge.cassette': { kind: 'custom', custom: cassetteFile, env: 'PANOPTES_JUDGE__CASSETTE' },
  'judge.model.base_url': { kind: 'custom', custom: endpointUrl, env: 'PANOPTES_JUDGE__MODEL__BASE_URL' },
  'judge.model.model': { kind: 'string', env: 'PANOPTES_JUDGE__MODEL__MODEL' },
  'judge.model.api_key_env': { kind: 'custom', custom: envName, env: 'PANOPTES_JUDGE__MODEL__API_KEY_ENV' },
  'judge.timeout_ms': { kind: 'custom', custom: timeout, env: 'PANOPTES_JUDGE__TIMEOUT_MS' },
  'judge.concurrency': { kind: 'positive-integer', env: 'PANOPTES_JUDGE__CONCURRENCY' },
  'judge.budget.session.calls': { kind: 'positive-integer', env: 'PANOPTES_JUDGE__BUDGET__SESSION__CALLS' },
  'judge.budget.session.tokens': { kind: 'positive-integer', env: 'PANOPTES_JUDGE__BUDGET__SESSION__TOKENS' },
  'judge.budget.process.calls': { kind: 'positive-integer', env: 'PANOPTES_JUDGE__BUDGET__PROCESS__CALLS' },
  'judge.budget.process.tokens': { kind: 'positive-integer', env: 'PANOPTES_JUDGE__BUDGET__PROCESS__TOKENS' },
} as const satisfies Record<string, { kind: 'custom' | 'string' | 'positive-integer'; env: string; custom?: CustomCheck }>;

export type JudgeFieldName = keyof typeof JUDGE_FIELDS;

/** The sections the judge's keys live in, outermost first (`judge.model` and the budget's are nested). */
export const JUDGE_SECTIONS = ['judge', 'judge.model', 'judge.budget', 'judge.budget.session', 'judge.budget.process'] as const;

/**
 * Builds the `judge:` section from the checked keys: reads and validates the rubric file (its diagnostics keep their
 * own file and line) and the cassette, and checks the keys together: a model or a cassette, not both; a model's
 * `model`; the API key's variable set. Adds a diagnostic for each problem; `undefined` when the section is absent or
 * has an error.
 */
export async function buildJudgeConfig(checked: ReadonlyMap<string, CheckedValue>, diagnostics: Diagnostic[], fallbackSource: string, env: Record<string, string | undefined>): Promise<ServeJudgeConfig | undefined> {
  const keys = [...checked.keys()].filter((name) => name.startsWith('judge.'));
  if (keys.length === 0) return undefined;
  const before = diagnostics.length;
  const value = <T>(name: JudgeFieldName): T | undefined => checked.get(name)?.value as T | undefined;
  const placed = (name: string) => {
    const origin = checked.get(name)?.origin ?? checked.get(keys[0]!)!.origin;
    const fromFile = origin.source !== 'environment' && origin.source !== 'command line';
    return { source: fromFile || checked.has(name) ? origin.source : fallbackSource, ...(checked.has(name) && origin.line ? { line: origin.line, column: origin.column! } : {}) };
  };
  const problem = (name: string, code: string, message: string, hint: string) => diagnostics.push({ severity: 'error', code, message, path: checked.get(name)?.origin.path ?? name, ...placed(name), hint });

  const rubricsPath = value<string>('judge.rubrics');
  if (rubricsPath === undefined) problem('judge.rubrics', 'missing-key', "'judge.rubrics' is required in the judge section", `set rubrics: (or ${JUDGE_FIELDS['judge.rubrics'].env}) to ${rubricsFile.expected}`);
  const rubrics = rubricsPath === undefined ? undefined : await readRubrics(rubricsPath, checked.get('judge.rubrics')!, diagnostics);

  const modelKeys = keys.filter((name) => name.startsWith('judge.model.'));
  const cassettePath = value<string>('judge.cassette');
  let model: ServeJudgeModel | undefined;
  if (cassettePath !== undefined && modelKeys.length > 0) {
    problem(modelKeys[0]!, 'invalid-value', `judge.model and judge.cassette are both set`, 'the judge replays a cassette (offline, tests) or asks a model: keep one of them');
  } else if (cassettePath !== undefined) {
    const cassette = await readCassette(cassettePath, checked.get('judge.cassette')!, diagnostics);
    if (cassette) model = { kind: 'cassette', path: cassettePath, cassette };
  } else if (modelKeys.length === 0) {
    problem('judge', 'missing-key', "the judge needs 'judge.model' or 'judge.cassette'", 'add model: { base_url: http://127.0.0.1:8000/v1, model: gpt-4o-mini, api_key_env: OPENAI_API_KEY } under judge:, or cassette: judge.cassette.json to replay recorded verdicts');
  } else {
    const baseUrl = value<string>('judge.model.base_url');
    const name = value<string>('judge.model.model');
    if (baseUrl === undefined) problem(modelKeys[0]!, 'missing-key', "'judge.model.base_url' is required with judge.model", `set base_url: (or ${JUDGE_FIELDS['judge.model.base_url'].env}) to ${endpointUrl.expected}`);
    if (name === undefined) problem(modelKeys[0]!, 'missing-key', "'judge.model.model' is required with judge.model", `set model: (or ${JUDGE_FIELDS['judge.model.model'].env}) to the judge model's name, such as gpt-4o-mini`);
    const apiKeyEnv = value<string>('judge.model.api_key_env');
    if (apiKeyEnv !== undefined && !env[apiKeyEnv]) {
      problem('judge.model.api_key_env', 'invalid-value', `the variable ${apiKeyEnv} is not set: received ${JSON.stringify(apiKeyEnv)}`, `export ${apiKeyEnv}=<the judge endpoint's API key> before starting the proxy, or drop api_key_env for an endpoint that takes no key`);
    }
    if (baseUrl !== undefined && name !== undefined) model = { kind: 'endpoint', baseUrl, model: name, ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }) };
  }
  if (diagnostics.length > before || !rubrics || !model) return undefined;

  const budget: NonNullable<ServeJudgeConfig['budget']> = {};
  for (const scope of ['session', 'process'] as const) {
    for (const limit of ['calls', 'tokens'] as const) {
      const set = value<number>(`judge.budget.${scope}.${limit}`);
      if (set !== undefined) budget[scope] = { ...budget[scope], [limit]: set };
    }
  }
  const timeoutMs = value<number>('judge.timeout_ms');
  const concurrency = value<number>('judge.concurrency');
  return {
    rubricsPath: rubricsPath!,
    rubrics,
    model,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(Object.keys(budget).length > 0 ? { budget } : {}),
  };
}

/** Reads and validates the rubric file (every scope runs in the proxy). Its own errors keep its file, line and column. */
async function readRubrics(path: string, { origin }: CheckedValue, diagnostics: Diagnostic[]): Promise<Rubric[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const failure = readFailureDiagnostic(path, error, 'check the path of the rubric file');
    diagnostics.push({ ...failure, code: 'invalid-value', path: origin.path, source: origin.source, ...(origin.line ? { line: origin.line, column: origin.column! } : {}), message: `${failure.message} (${path})`, hint: `${failure.hint ? `${failure.hint}; ` : ''}expected ${rubricsFile.expected}` });
    return undefined;
  }
  const validated = validateRubrics(text, { source: path });
  diagnostics.push(...validated.diagnostics.filter((diagnostic) => diagnostic.severity === 'error'));
  if (!validated.rubrics) return undefined;
  return validated.rubrics;
}

/** Reads a cassette: JSON `{ modelId, entries: { <key>: { answer, usage? } } }`, as `panoptes judge record` writes it. */
async function readCassette(path: string, { origin }: CheckedValue, diagnostics: Diagnostic[]): Promise<Cassette | undefined> {
  const at = { path: origin.path, source: origin.source, ...(origin.line ? { line: origin.line, column: origin.column! } : {}) };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const failure = readFailureDiagnostic(path, error, 'check the path of the cassette');
    diagnostics.push({ ...failure, code: 'invalid-value', ...at, message: `${failure.message} (${path})`, hint: `${failure.hint ? `${failure.hint}; ` : ''}expected ${cassetteFile.expected}` });
    return undefined;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    diagnostics.push({ severity: 'error', code: 'invalid-value', message: `the cassette ${path} is not JSON: ${(error as Error).message}`, ...at, hint: `expected ${cassetteFile.expected}` });
    return undefined;
  }
  const cassette = data as Partial<Cassette> | null;
  const entries = cassette?.entries;
  if (typeof cassette?.modelId !== 'string' || typeof entries !== 'object' || entries === null || Array.isArray(entries) || !Object.values(entries).every((entry) => typeof entry === 'object' && entry !== null && 'answer' in entry)) {
    diagnostics.push({ severity: 'error', code: 'invalid-value', message: `the cassette ${path} is not a judge cassette (it needs modelId and entries of { answer })`, ...at, hint: `expected ${cassetteFile.expected}` });
    return undefined;
  }
  return cassette as Cassette;
}
