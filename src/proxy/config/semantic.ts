/**
 * The semantic tier's keys of `panoptes serve`: `embeddings:` (which embedder gives the exemplar tier and semantic loop
 * detection) and `loops:` as a section (every loop setting, mapped onto the loop detector's options). Kept apart from
 * the core keys; `loadServeConfig` reads them with the rest and reports them the same way.
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Diagnostic } from '../../diagnostics/index.js';
import { DEFAULT_TRANSFORMERS_MODEL } from '../../embed/transformers.js';
import { InvalidOptionError } from '../../errors/index.js';
import { resolveLoopOptions, type LoopDetectorOptions } from '../../loops/options.js';
import { httpUrl, type CheckedValue, type CheckResult, type CustomCheck, type Origin } from './field.js';

/** Which embedder the proxy uses. */
export type EmbeddingsProvider = 'lexical' | 'transformers' | 'openai';

/** The checked `embeddings:` section. */
export type ServeEmbeddingsConfig =
  | { provider: 'lexical'; timeoutMs: number; warmUpTimeoutMs: number; cacheSize: number }
  | {
      provider: 'transformers';
      /** Folder that holds the model folder, as transformers.js's `localModelPath` expects; only local files are read. */
      localModelPath: string;
      model: string;
      quantized: boolean;
      timeoutMs: number;
      warmUpTimeoutMs: number;
      cacheSize: number;
    }
  | { provider: 'openai'; url: string; model: string; apiKey?: string; dimensions?: number; timeoutMs: number; warmUpTimeoutMs: number; cacheSize: number };

/** Budget of one embedding on the model-call path (classification and loops), in milliseconds. */
export const DEFAULT_SERVE_EMBEDDING_TIMEOUT_MS = 50;
/** Budget of embedding the workflow's exemplars at start (loading a local model included), in milliseconds. */
export const DEFAULT_SERVE_WARM_UP_TIMEOUT_MS = 30_000;
/** Texts whose vectors are kept, so the classifier and the loop detector never embed one response twice. */
export const DEFAULT_SERVE_EMBEDDING_CACHE = 1000;

const PROVIDERS: readonly EmbeddingsProvider[] = ['lexical', 'transformers', 'openai'];

const provider: CustomCheck = {
  check: (value) => (PROVIDERS.includes(value as EmbeddingsProvider) ? { value } : { problem: 'not a known provider' }),
  expected: 'lexical (built in, near-verbatim repeats only), transformers (a local model folder) or openai (an OpenAI-compatible /v1/embeddings endpoint)',
};

const embeddingsUrl: CustomCheck = {
  check(value) {
    const parsed = httpUrl(value, 'put the key in embeddings.api_key');
    if ('problem' in parsed) return parsed;
    const { url } = parsed;
    return /\/embeddings\/?$/.test(url.pathname) ? { value } : { problem: 'not an embeddings endpoint (the path must end in /embeddings)' };
  },
  expected: 'the URL of an OpenAI-compatible embeddings endpoint, /v1/embeddings included, e.g. http://127.0.0.1:8080/v1/embeddings',
};

const folder: CustomCheck = {
  check(value, origin: Origin): CheckResult {
    if (typeof value !== 'string' || value === '') return { problem: 'not a folder path' };
    const path = resolve(origin.base, value);
    if (!existsSync(path)) return { problem: `no such folder (${path})` };
    if (!statSync(path).isDirectory()) return { problem: `not a folder (${path})` };
    return { value: path };
  },
  expected: 'the folder of a local sentence-embedding model (config.json, tokenizer.json, onnx/model.onnx) or the folder above it (relative to the config file)',
};

const similarity: CustomCheck = {
  check(value) {
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) return { problem: 'not a number' };
    return number > 0 && number <= 1 ? { value: number } : { problem: 'out of range' };
  },
  expected: 'a cosine similarity above 0 and at most 1, such as 0.95',
};

const countOrOff: CustomCheck = {
  check(value) {
    if (value === false || value === 'false' || value === 'off') return { value: false };
    const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number)) return { problem: 'not a whole number or false' };
    return number >= 2 ? { value: number } : { problem: 'out of range' };
  },
  expected: 'a whole number of at least 2, or false to turn this check off',
};

const loopsSwitch: CustomCheck = {
  check(value) {
    if (typeof value === 'boolean') return { value };
    if (value === 'true' || value === '1') return { value: true };
    if (value === 'false' || value === '0') return { value: false };
    return { problem: Array.isArray(value) ? 'a list, not a switch or a section' : 'not a boolean' };
  },
  expected: 'true, false, or a section of loop settings (loops:\\n  threshold: 0.95\\n  window: 5\\n  ...)',
};

type SemanticKind = 'positive-integer' | 'boolean' | 'string' | 'string-list' | 'custom';

/** The semantic tier's keys, by dotted name. */
export const SEMANTIC_FIELDS = {
  'embeddings.provider': { kind: 'custom', custom: provider, env: 'PANOPTES_EMBEDDINGS__PROVIDER' },
  'embeddings.url': { kind: 'custom', custom: embeddingsUrl, env: 'PANOPTES_EMBEDDINGS__URL' },
  'embeddings.model': { kind: 'string', env: 'PANOPTES_EMBEDDINGS__MODEL' },
  'embeddings.api_key': { kind: 'string', env: 'PANOPTES_EMBEDDINGS__API_KEY', secret: true },
  'embeddings.dimensions': { kind: 'positive-integer', env: 'PANOPTES_EMBEDDINGS__DIMENSIONS' },
  'embeddings.model_path': { kind: 'custom', custom: folder, env: 'PANOPTES_EMBEDDINGS__MODEL_PATH' },
  'embeddings.quantized': { kind: 'boolean', env: 'PANOPTES_EMBEDDINGS__QUANTIZED' },
  'embeddings.timeout_ms': { kind: 'positive-integer', env: 'PANOPTES_EMBEDDINGS__TIMEOUT_MS' },
  'embeddings.warm_up_timeout_ms': { kind: 'positive-integer', env: 'PANOPTES_EMBEDDINGS__WARM_UP_TIMEOUT_MS' },
  'embeddings.cache_size': { kind: 'positive-integer', env: 'PANOPTES_EMBEDDINGS__CACHE_SIZE' },
  loops: { kind: 'custom', custom: loopsSwitch, env: 'PANOPTES_LOOPS', flag: '--loops' },
  'loops.enabled': { kind: 'boolean', env: 'PANOPTES_LOOPS__ENABLED' },
  'loops.threshold': { kind: 'custom', custom: similarity, env: 'PANOPTES_LOOPS__THRESHOLD' },
  'loops.window': { kind: 'positive-integer', env: 'PANOPTES_LOOPS__WINDOW' },
  'loops.ttl_ms': { kind: 'positive-integer', env: 'PANOPTES_LOOPS__TTL_MS' },
  'loops.timeout_ms': { kind: 'positive-integer', env: 'PANOPTES_LOOPS__TIMEOUT_MS' },
  'loops.long_window': { kind: 'positive-integer', env: 'PANOPTES_LOOPS__LONG_WINDOW' },
  'loops.max_sessions': { kind: 'positive-integer', env: 'PANOPTES_LOOPS__MAX_SESSIONS' },
  'loops.hint': { kind: 'string', env: 'PANOPTES_LOOPS__HINT' },
  'loops.stronger_hint': { kind: 'string', env: 'PANOPTES_LOOPS__STRONGER_HINT' },
  'loops.stop_message': { kind: 'string', env: 'PANOPTES_LOOPS__STOP_MESSAGE' },
  'loops.stronger_hint_at': { kind: 'positive-integer', env: 'PANOPTES_LOOPS__STRONGER_HINT_AT' },
  'loops.stop_at': { kind: 'positive-integer', env: 'PANOPTES_LOOPS__STOP_AT' },
  'loops.repeated_action': { kind: 'custom', custom: countOrOff, env: 'PANOPTES_LOOPS__REPEATED_ACTION' },
  'loops.repeated_error': { kind: 'custom', custom: countOrOff, env: 'PANOPTES_LOOPS__REPEATED_ERROR' },
  'loops.monologue': { kind: 'custom', custom: countOrOff, env: 'PANOPTES_LOOPS__MONOLOGUE' },
  'loops.alternation': { kind: 'custom', custom: countOrOff, env: 'PANOPTES_LOOPS__ALTERNATION' },
  'loops.repeated_line': { kind: 'custom', custom: countOrOff, env: 'PANOPTES_LOOPS__REPEATED_LINE' },
  'loops.unchanged_result': { kind: 'custom', custom: countOrOff, env: 'PANOPTES_LOOPS__UNCHANGED_RESULT' },
  'loops.exempt_tools': { kind: 'string-list', env: 'PANOPTES_LOOPS__EXEMPT_TOOLS' },
  'loops.ignore_keys': { kind: 'string-list', env: 'PANOPTES_LOOPS__IGNORE_KEYS' },
} as const satisfies Record<string, { kind: SemanticKind; env: string; flag?: string; secret?: true; custom?: CustomCheck }>;

export type SemanticFieldName = keyof typeof SEMANTIC_FIELDS;

/** Sections whose keys are listed above; `loops` is also a switch (`loops: true`). */
export const SEMANTIC_SECTIONS = ['embeddings', 'loops'] as const;

/** Loop keys and the detector option each sets; the escalation pair goes into `escalation`. */
const LOOP_OPTIONS = {
  'loops.threshold': 'threshold',
  'loops.window': 'window',
  'loops.ttl_ms': 'ttlMs',
  'loops.timeout_ms': 'timeoutMs',
  'loops.max_sessions': 'maxSessions',
  'loops.hint': 'hint',
  'loops.stronger_hint': 'strongerHint',
  'loops.stop_message': 'stopMessage',
  'loops.repeated_action': 'repeatedAction',
  'loops.repeated_error': 'repeatedError',
  'loops.monologue': 'monologue',
  'loops.alternation': 'alternation',
  'loops.repeated_line': 'repeatedLine',
  'loops.unchanged_result': 'unchangedResult',
  'loops.exempt_tools': 'exemptTools',
  'loops.ignore_keys': 'ignoreKeys',
} as const satisfies Partial<Record<SemanticFieldName, keyof LoopDetectorOptions>>;

/** Keys that apply to one provider only. */
const PROVIDER_KEYS: Record<string, readonly EmbeddingsProvider[]> = {
  'embeddings.url': ['openai'],
  'embeddings.api_key': ['openai'],
  'embeddings.dimensions': ['openai'],
  'embeddings.model': ['openai', 'transformers'],
  'embeddings.model_path': ['transformers'],
  'embeddings.quantized': ['transformers'],
};

/** The loop detector's options set by configuration (plain data: the monitor adds its embedder, clock and logger). */
export type ServeLoopOptions = Pick<LoopDetectorOptions, (typeof LOOP_OPTIONS)[keyof typeof LOOP_OPTIONS] | 'longWindow' | 'escalation'>;

/** What the semantic keys add to the checked configuration. */
export interface SemanticConfig {
  /** Loop detection on or off: `loops.enabled`, else `loops: true|false`, else on when any `loops.*` key is set. */
  loops: boolean;
  /** The loop settings given; absent when none was. */
  loopOptions?: ServeLoopOptions;
  embeddings?: ServeEmbeddingsConfig;
}

/**
 * Builds the semantic tier's configuration from the checked keys, adding a diagnostic (at the key's place) for each
 * key that does not fit the others: a provider's required key missing, a key of another provider, a loop setting the
 * loop detector refuses.
 */
export function buildSemanticConfig(checked: ReadonlyMap<string, CheckedValue>, diagnostics: Diagnostic[], fallbackSource: string): SemanticConfig {
  const value = <T>(name: SemanticFieldName): T | undefined => checked.get(name)?.value as T | undefined;
  const problem = (name: string, message: string, hint: string) => {
    const origin = checked.get(name)?.origin;
    diagnostics.push({ severity: 'error', code: 'invalid-value', message, path: origin?.path ?? name, source: origin?.source ?? fallbackSource, ...(origin?.line ? { line: origin.line, column: origin.column! } : {}), hint });
  };

  const embeddings = buildEmbeddings(checked, value, problem, fallbackSource, diagnostics);

  const loopKeys = [...checked.keys()].filter((name) => name.startsWith('loops.') && name !== 'loops.enabled');
  const loops = value<boolean>('loops.enabled') ?? value<boolean>('loops') ?? loopKeys.length > 0;
  if (loopKeys.length === 0) return { loops, ...(embeddings ? { embeddings } : {}) };

  const options: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(LOOP_OPTIONS)) if (checked.has(name)) options[option] = checked.get(name)!.value;
  if (checked.has('loops.long_window')) options.longWindow = { size: value<number>('loops.long_window') };
  const strongerHintAt = value<number>('loops.stronger_hint_at');
  const stopAt = value<number>('loops.stop_at');
  if (strongerHintAt !== undefined || stopAt !== undefined) options.escalation = { ...(strongerHintAt ? { strongerHintAt } : {}), ...(stopAt ? { stopAt } : {}) };
  // The loop detector's own checks judge the settings together (a long window needs embeddings, an escalation's
  // order, each structural check's minimum), so the proxy refuses at start what the detector would refuse later.
  try {
    resolveLoopOptions({ ...options, ...(embeddings ? { embedder: STAND_IN_EMBEDDER } : {}) } as LoopDetectorOptions);
  } catch (error) {
    if (!InvalidOptionError.isInstance(error)) throw error;
    const name = keyOfOption(error.parameter);
    const fix = error.message.replace(/^Invalid option `[^`]*`: received .*?\. (?=[A-Z])/, '');
    problem(name, `${name} is refused by the loop detector: received ${JSON.stringify(checked.get(name)?.value ?? options[error.parameter])}`, name === 'loops.long_window' && !embeddings ? 'the long window compares embeddings: set embeddings.provider too, or drop loops.long_window' : fix);
  }
  return { loops, loopOptions: options as ServeLoopOptions, ...(embeddings ? { embeddings } : {}) };
}

/** Stands in for the configured embedder while the loop settings are checked (the real one is built at start). */
const STAND_IN_EMBEDDER = { embedQuery: async () => [1], embedDocuments: async () => [[1]] };

function keyOfOption(parameter: string): string {
  if (parameter.startsWith('longWindow')) return 'loops.long_window';
  if (parameter === 'escalation.strongerHintAt') return 'loops.stronger_hint_at';
  if (parameter.startsWith('escalation')) return 'loops.stop_at';
  const entry = Object.entries(LOOP_OPTIONS).find(([, option]) => option === parameter);
  return entry ? entry[0] : 'loops';
}

function buildEmbeddings(
  checked: ReadonlyMap<string, CheckedValue>,
  value: <T>(name: SemanticFieldName) => T | undefined,
  problem: (name: string, message: string, hint: string) => void,
  fallbackSource: string,
  diagnostics: Diagnostic[],
): ServeEmbeddingsConfig | undefined {
  const keys = [...checked.keys()].filter((name) => name.startsWith('embeddings.'));
  if (keys.length === 0) return undefined;
  const kind = value<EmbeddingsProvider>('embeddings.provider');
  if (kind === undefined) {
    const origin = checked.get(keys[0]!)!.origin;
    diagnostics.push({ severity: 'error', code: 'missing-key', message: `'embeddings.provider' is required with ${keys.join(', ')}`, path: 'embeddings.provider', source: origin.source === 'environment' || origin.source === 'command line' ? fallbackSource : origin.source, hint: "set provider: lexical, transformers or openai under 'embeddings:' (or PANOPTES_EMBEDDINGS__PROVIDER)" });
    return undefined;
  }
  for (const name of keys) {
    const allowed = PROVIDER_KEYS[name];
    if (allowed && !allowed.includes(kind)) problem(name, `${name} does not apply to provider ${kind}`, `it is read for provider ${allowed.join(' or ')}; remove it or change embeddings.provider`);
  }
  const common = {
    timeoutMs: value<number>('embeddings.timeout_ms') ?? DEFAULT_SERVE_EMBEDDING_TIMEOUT_MS,
    warmUpTimeoutMs: value<number>('embeddings.warm_up_timeout_ms') ?? DEFAULT_SERVE_WARM_UP_TIMEOUT_MS,
    cacheSize: value<number>('embeddings.cache_size') ?? DEFAULT_SERVE_EMBEDDING_CACHE,
  };
  const required = (name: SemanticFieldName, hint: string): boolean => {
    if (checked.has(name)) return true;
    const origin = checked.get('embeddings.provider')!.origin;
    diagnostics.push({ severity: 'error', code: 'missing-key', message: `'${name}' is required with provider ${kind}`, path: name, source: origin.source, ...(origin.line ? { line: origin.line, column: origin.column! } : {}), hint });
    return false;
  };
  switch (kind) {
    case 'lexical':
      return { provider: 'lexical', ...common };
    case 'openai': {
      const hasUrl = required('embeddings.url', `set url: (or ${SEMANTIC_FIELDS['embeddings.url'].env}) to ${embeddingsUrl.expected}`);
      const hasModel = required('embeddings.model', `set model: (or ${SEMANTIC_FIELDS['embeddings.model'].env}), such as text-embedding-3-small`);
      if (!hasUrl || !hasModel) return undefined;
      const apiKey = value<string>('embeddings.api_key');
      const dimensions = value<number>('embeddings.dimensions');
      return { provider: 'openai', url: value<string>('embeddings.url')!, model: value<string>('embeddings.model')!, ...(apiKey ? { apiKey } : {}), ...(dimensions ? { dimensions } : {}), ...common };
    }
    case 'transformers': {
      if (!required('embeddings.model_path', `set model_path: (or ${SEMANTIC_FIELDS['embeddings.model_path'].env}) to ${folder.expected}; models are never downloaded by the proxy`)) return undefined;
      const quantized = value<boolean>('embeddings.quantized') ?? false;
      const location = modelLocation(value<string>('embeddings.model_path')!, value<string>('embeddings.model') ?? DEFAULT_TRANSFORMERS_MODEL, quantized);
      if ('problem' in location) {
        problem('embeddings.model_path', location.problem, `the folder must hold config.json, tokenizer.json and ${onnxFile(quantized)}, or hold the model's folder '${value<string>('embeddings.model') ?? DEFAULT_TRANSFORMERS_MODEL}' with them; fetch a model once where there is a network (e.g. huggingface-cli download Xenova/all-MiniLM-L6-v2 --local-dir <folder>)`);
        return undefined;
      }
      return { provider: 'transformers', ...location, quantized, ...common };
    }
  }
}

const onnxFile = (quantized: boolean) => (quantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx');

/**
 * `model_path` may name the model folder itself (it has a `config.json`) or the folder above it, as transformers.js's
 * `localModelPath` expects; either way the model's files must be there, since the proxy never downloads one.
 */
function modelLocation(path: string, model: string, quantized: boolean): { localModelPath: string; model: string } | { problem: string } {
  const own = existsSync(join(path, 'config.json'));
  const modelFolder = own ? path : join(path, model);
  const missing = ['config.json', 'tokenizer.json', onnxFile(quantized)].filter((file) => !existsSync(join(modelFolder, file)));
  if (missing.length > 0) return { problem: `no usable model in ${modelFolder}: ${missing.join(', ')} missing` };
  return own ? { localModelPath: dirname(path), model: basename(path) } : { localModelPath: path, model };
}
