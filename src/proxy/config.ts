/**
 * The configuration of `panoptes serve`: a YAML file, `PANOPTES_*` environment variables and command-line flags
 * (flags win over the environment, the environment over the file). Checked at start, every error reported with
 * where it came from (file, line and column; variable; flag), the field, the bad value and a fix, the way workflow
 * errors are. The keys are listed in docs/proxy.md.
 * @module
 */
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, isMap, isScalar, isSeq, type Node, type YAMLMap } from 'yaml';
import { closestName, formatDiagnostic, type Diagnostic } from '../diagnostics/index.js';
import { DiagnosticsError } from '../errors/diagnostics-error.js';
import { hasErrorCode } from '../errors/panoptes-error.js';
import { redactUrl } from '../store/redis/redact-url.js';
import { DEFAULT_BODY_LIMIT_BYTES, DEFAULT_HOLD_TEXT_CHARS, DEFAULT_HOLD_TEXT_MS, DEFAULT_PROXY_HOST, DEFAULT_PROXY_PORT, DEFAULT_UPSTREAM_TIMEOUT_MS } from './defaults.js';
import { normalisePrefix } from './request-path.js';
import { httpUrl, type CheckedValue, type CustomCheck, type Origin } from './config/field.js';
import { buildSemanticConfig, SEMANTIC_FIELDS, SEMANTIC_SECTIONS, type SemanticFieldName, type ServeEmbeddingsConfig, type ServeLoopOptions } from './config/semantic.js';
import { PRODUCTION_FIELDS, PRODUCTION_SECTIONS, productionConfig, type ProductionConfig, type ProductionField } from './config/production.js';
import { checkWorkflows, loopSettingsOf, readWorkflowsNode, type ReadWorkflows, type WorkflowEntry } from './config/workflows.js';
import type { Registry } from '../registry/index.js';
import { loadConfigModules, modulesList } from './config/modules.js';
import { buildJudgeConfig, JUDGE_FIELDS, JUDGE_SECTIONS, type JudgeFieldName, type ServeJudgeConfig } from './config/judge.js';

export type { WorkflowEntry } from './config/workflows.js';
export type { ServeJudgeConfig, ServeJudgeModel } from './config/judge.js';

/** The checked configuration of a proxy. */
export interface ServeConfig extends ProductionConfig {
  upstream: string;
  /** Base URL of an Anthropic-compatible upstream: `/v1/messages` is monitored and sent there. */
  anthropicUpstream?: string;
  /** Path prefixes passed to the upstream unmonitored (normalised); none when absent. */
  passthrough?: string[];
  /** Absolute path of the default workflow's file (the top-level `workflow:`, or the `workflows:` entry marked default). */
  workflow: string;
  /** The default workflow's id: `default` for the top-level `workflow:`, else its entry's. */
  workflowId: string;
  /** Absolute path of the default workflow's rulebase (`rulebase:`). */
  rulebase?: string;
  /** The other workflows, in the order their selectors are tried (`workflows:`, the default left out). */
  workflows: WorkflowEntry[];
  port: number;
  host: string;
  loops: boolean;
  strict: boolean;
  proxyKeys: string[];
  /** Refuse chat completions that name no session, rather than place them by their conversation. */
  requireSessionId: boolean;
  /** How streamed text is checked when a response could be withheld (`createProxy`'s `textPolicy`). */
  textPolicy: 'stream' | 'hold';
  /** What a user reads in place of a refused tool call (`createProxy`'s `refusalMessage`); its default when absent. */
  refusalMessage?: string;
  /** Whether a rulebase's known facts go into each request's system prompt (`createProxyRules`' `factSummary`). */
  factSummary: boolean;
  limits: { bodyBytes: number; upstreamTimeoutMs: number; holdTextChars: number; holdTextMs: number };
  redis?: { url: string; keyPrefix?: string; ttlMs?: number; commandTimeoutMs?: number };
  /** Loop settings from the `loops:` section, mapped onto the loop detector's options; absent when none is set. */
  loopOptions?: ServeLoopOptions;
  /** The embedder of the semantic tier (exemplar classification and semantic loop detection); absent: none. */
  embeddings?: ServeEmbeddingsConfig;
  /** The judge of tool calls and responses (`judge:`): its rubrics, model and bounds; absent: no judge. */
  judge?: ServeJudgeConfig;
  /** Absolute paths of the extension modules (`modules:`); absent when none. */
  modules?: string[];
  /**
   * The registry the workflows are loaded with: the built-ins, what is in `defaultRegistry`, and what `modules`
   * give. @default defaultRegistry
   */
  registry?: Registry;
}

/** Raw values by source; `flags` are commander's, already named by field. */
export interface ServeConfigSources {
  /** Path of the YAML file (`--config`). */
  configPath?: string;
  /** The environment; only `PANOPTES_*` is read. @default process.env */
  env?: Record<string, string | undefined>;
  flags?: Partial<Record<FieldName, string | boolean | string[]>>;
}

type Kind = 'custom' | 'url' | 'http-url' | 'anthropic-url' | 'redis-url' | 'file' | 'rules-file' | 'port' | 'positive-integer' | 'boolean' | 'string' | 'string-list' | 'path-prefixes' | 'text-policy';
type FieldName = SemanticFieldName | ProductionField | JudgeFieldName | 'upstream' | 'anthropic_upstream' | 'passthrough' | 'modules' | 'workflow' | 'rulebase' | 'port' | 'host' | 'strict' | 'proxy_keys' | 'require_session_id' | 'text_policy' | 'refusal_message' | 'fact_summary' | 'limits.hold_text_chars' | 'limits.hold_text_ms' | 'limits.body_bytes' | 'limits.upstream_timeout_ms' | 'redis.url' | 'redis.key_prefix' | 'redis.ttl_ms' | 'redis.command_timeout_ms';

/** Every key: its kind, its environment variable and its flag; `secret` values are never printed whole. */
const FIELDS: Record<FieldName, { kind: Kind; env: string; flag?: string; secret?: true; custom?: CustomCheck }> = {
  upstream: { kind: 'http-url', env: 'PANOPTES_UPSTREAM', flag: '--upstream' },
  anthropic_upstream: { kind: 'anthropic-url', env: 'PANOPTES_ANTHROPIC_UPSTREAM' },
  passthrough: { kind: 'path-prefixes', env: 'PANOPTES_PASSTHROUGH' },
  workflow: { kind: 'file', env: 'PANOPTES_WORKFLOW', flag: '--workflow' },
  modules: { kind: 'custom', custom: modulesList, env: 'PANOPTES_MODULES', flag: '--module' },
  rulebase: { kind: 'rules-file', env: 'PANOPTES_RULEBASE' },
  port: { kind: 'port', env: 'PANOPTES_PORT', flag: '--port' },
  host: { kind: 'string', env: 'PANOPTES_HOST', flag: '--host' },
  strict: { kind: 'boolean', env: 'PANOPTES_STRICT' },
  proxy_keys: { kind: 'string-list', env: 'PANOPTES_PROXY_KEYS', secret: true },
  require_session_id: { kind: 'boolean', env: 'PANOPTES_REQUIRE_SESSION_ID' },
  fact_summary: { kind: 'boolean', env: 'PANOPTES_FACT_SUMMARY' },
  text_policy: { kind: 'text-policy', env: 'PANOPTES_TEXT_POLICY' },
  refusal_message: { kind: 'string', env: 'PANOPTES_REFUSAL_MESSAGE' },
  'limits.body_bytes': { kind: 'positive-integer', env: 'PANOPTES_LIMITS__BODY_BYTES' },
  'limits.upstream_timeout_ms': { kind: 'positive-integer', env: 'PANOPTES_LIMITS__UPSTREAM_TIMEOUT_MS' },
  'limits.hold_text_chars': { kind: 'positive-integer', env: 'PANOPTES_LIMITS__HOLD_TEXT_CHARS' },
  'limits.hold_text_ms': { kind: 'positive-integer', env: 'PANOPTES_LIMITS__HOLD_TEXT_MS' },
  'redis.url': { kind: 'redis-url', env: 'PANOPTES_REDIS__URL', flag: '--redis', secret: true },
  'redis.key_prefix': { kind: 'string', env: 'PANOPTES_REDIS__KEY_PREFIX' },
  'redis.ttl_ms': { kind: 'positive-integer', env: 'PANOPTES_REDIS__TTL_MS' },
  'redis.command_timeout_ms': { kind: 'positive-integer', env: 'PANOPTES_REDIS__COMMAND_TIMEOUT_MS' },
  // The semantic tier (`embeddings:`, `loops:`) and the production keys, in files of their own.
  ...SEMANTIC_FIELDS,
  ...PRODUCTION_FIELDS,
  ...JUDGE_FIELDS,
};
/** Sections of keys, by dotted path (`judge.model` is a section inside `judge`). */
const SECTIONS = new Set<string>(['limits', 'redis', ...SEMANTIC_SECTIONS, ...PRODUCTION_SECTIONS, ...JUDGE_SECTIONS]);
/** Variables of a section: a misspelt one is reported rather than ignored. */
const SECTION_VARIABLE = new RegExp(`^PANOPTES_(${[...SECTIONS].filter((section) => !section.includes('.')).map((section) => section.toUpperCase()).join('|')})__`);

const EXPECTED: Record<Exclude<Kind, 'custom'>, string> = {
  url: 'an http(s) URL, e.g. http://127.0.0.1:4318',
  'http-url': 'the base URL of an OpenAI-compatible API, /v1 included, e.g. http://127.0.0.1:8000/v1',
  'anthropic-url': 'the base URL of an Anthropic-compatible API, /v1 included, e.g. https://api.anthropic.com/v1',
  'redis-url': 'a Redis URL such as redis://127.0.0.1:6379',
  file: 'the path of a workflow YAML file (relative to the config file)',
  'rules-file': 'the path of a rulebase (.rules) file (relative to the config file)',
  port: 'a TCP port from 0 to 65535 (0 picks a free port)',
  'positive-integer': 'a positive whole number',
  boolean: 'true or false',
  string: 'a non-empty string',
  'string-list': 'a non-empty list of non-empty strings (in the environment: comma-separated)',
  'text-policy': 'stream or hold',
  'path-prefixes': 'a list of path prefixes under /v1, such as ["/v1/models", "/v1/embeddings"] (["/v1"] passes every route; in the environment: comma-separated)',
};

/** Thrown by {@link loadServeConfig}: every problem found, each with its place and fix. */
export class ProxyConfigError extends DiagnosticsError {
  constructor(diagnostics: readonly Diagnostic[]) {
    super('INVALID_OPTION', 'proxy configuration', diagnostics);
    this.name = 'ProxyConfigError';
  }

  static override isInstance(value: unknown): value is ProxyConfigError {
    return hasErrorCode(value, 'INVALID_OPTION') && Array.isArray((value as { diagnostics?: unknown }).diagnostics);
  }
}

/**
 * Reads and checks the configuration of `panoptes serve`.
 * @throws {ProxyConfigError} listing every unknown key, bad value, missing required key and missing file.
 * @example
 * const config = await loadServeConfig({ configPath: 'panoptes.yaml', flags: { port: '0' } });
 */
export async function loadServeConfig({ configPath, env = process.env, flags = {} }: ServeConfigSources): Promise<ServeConfig> {
  const diagnostics: Diagnostic[] = [];
  const values = new Map<FieldName, { value: unknown; origin: Origin }>();
  const cwd = process.cwd();

  const special: { workflows?: ReadWorkflows } = {};
  if (configPath !== undefined) await readFile(configPath, values, diagnostics, special);
  for (const [name, field] of Object.entries(FIELDS) as Array<[FieldName, (typeof FIELDS)[FieldName]]>) {
    const value = env[field.env];
    if (value !== undefined && value !== '') values.set(name, { value, origin: { source: 'environment', path: field.env, base: cwd } });
  }
  for (const name of Object.keys(env)) {
    if (!SECTION_VARIABLE.test(name)) continue;
    if (Object.values(FIELDS).some((field) => field.env === name)) continue;
    const suggestion = closestName(name, Object.values(FIELDS).map((field) => field.env));
    diagnostics.push({ severity: 'error', code: 'unknown-key', message: `unknown variable ${name}`, path: name, source: 'environment', hint: suggestion ? `did you mean ${suggestion}?` : `known: ${Object.values(FIELDS).map((field) => field.env).join(', ')}` });
  }
  for (const [name, value] of Object.entries(flags) as Array<[FieldName, string | boolean | string[] | undefined]>) {
    if (value === undefined) continue;
    if (!(name in FIELDS)) {
      diagnostics.push({ severity: 'error', code: 'unknown-key', message: `unknown flag for '${name}'`, path: name, source: 'command line', hint: `flags set: ${Object.entries(FIELDS).flatMap(([key, field]) => (field.flag ? [`${field.flag} (${key})`] : [])).join(', ')}` });
      continue;
    }
    values.set(name, { value, origin: { source: 'command line', path: FIELDS[name].flag ?? name, base: cwd } });
  }

  const checked = new Map<FieldName, unknown>();
  for (const [name, { value, origin }] of values) {
    const field = FIELDS[name];
    const result = field.custom ? await field.custom.check(value, origin) : await check(field.kind as Exclude<Kind, 'custom'>, value, origin);
    if ('problem' in result) diagnostics.push({ severity: 'error', code: 'invalid-value', message: `${result.problem}: received ${shown(name, value)}`, path: origin.path, source: origin.source, ...(origin.line ? { line: origin.line, column: origin.column! } : {}), hint: `expected ${field.custom ? field.custom.expected : EXPECTED[field.kind as Exclude<Kind, 'custom'>]}` });
    else checked.set(name, result.value);
  }
  // A config file that cannot be read is the one problem to report: what it would have held is not missing.
  const unreadable = diagnostics.some((diagnostic) => diagnostic.code === 'unreadable-file');
  const entries = special.workflows
    ? checkWorkflows(special.workflows, { topLevelWorkflow: values.has('workflow'), proxyKeys: (checked.get('proxy_keys') as string[] | undefined) ?? [], anthropicUpstream: checked.has('anthropic_upstream') }, diagnostics)
    : [];
  const defaultEntry = entries.find((entry) => entry.default);
  for (const required of ['upstream', 'workflow'] as const) {
    // With `workflows:`, a missing default is reported there.
    if (values.has(required) || unreadable || (required === 'workflow' && special.workflows)) continue;
    const field = FIELDS[required];
    diagnostics.push({ severity: 'error', code: 'missing-key', message: `'${required}' is required`, path: required, source: configPath ?? 'command line', hint: `set it with ${field.flag}, ${field.env}, or '${required}:' in the config file` });
  }
  const checkedValues = new Map<string, CheckedValue>([...checked].map(([name, value]) => [name, { value, origin: values.get(name)!.origin }]));
  const semantic = buildSemanticConfig(checkedValues, diagnostics, configPath ?? 'command line');
  // An entry's `loops:` section: its keys checked as the top-level ones, over them.
  const settings = special.workflows ? loopSettingsOf(special.workflows) : [];
  for (const [index, own] of settings.entries()) {
    if (!own || !entries[index]) continue;
    const merged = new Map([...checkedValues].filter(([name]) => name.startsWith('embeddings.') || (name.startsWith('loops.') && name !== 'loops.enabled')));
    for (const { name, value, origin } of own) {
      const field = FIELDS[name as FieldName];
      const result = field.custom ? await field.custom.check(value, origin) : await check(field.kind as Exclude<Kind, 'custom'>, value, origin);
      if ('problem' in result) diagnostics.push({ severity: 'error', code: 'invalid-value', message: `${result.problem}: received ${JSON.stringify(value)}`, path: origin.path, source: origin.source, ...(origin.line ? { line: origin.line, column: origin.column! } : {}), hint: `expected ${field.custom ? field.custom.expected : EXPECTED[field.kind as Exclude<Kind, 'custom'>]}` });
      else merged.set(name, { value: result.value, origin });
    }
    // Problems of the shared keys (embeddings) are reported once, by the top-level pass.
    const seen = new Set(diagnostics.map((diagnostic) => JSON.stringify(diagnostic)));
    const found: Diagnostic[] = [];
    const built = buildSemanticConfig(merged, found, configPath ?? 'command line');
    diagnostics.push(...found.filter((diagnostic) => !seen.has(JSON.stringify(diagnostic))));
    entries[index] = { ...entries[index]!, loops: built.loops, ...(built.loopOptions ? { loopOptions: built.loopOptions } : {}) };
  }
  const judge = await buildJudgeConfig(checkedValues, diagnostics, configPath ?? 'command line', env);
  // Imported only once every other key is fine (a module runs code, and a config with typos should not); its files
  // are checked either way.
  const extensions = checkedValues.has('modules') ? await loadConfigModules(checkedValues.get('modules')!, diagnostics, { importModules: diagnostics.length === 0 }) : undefined;
  const production = productionConfig((name) => checked.has(name), (name) => checked.get(name));
  if ('missing' in production) {
    const { source, line, column } = values.get(production.with)!.origin;
    diagnostics.push({ severity: 'error', code: 'missing-key', message: `'${production.missing}' is required with '${production.with}'`, path: production.missing, source, ...(line ? { line, column: column! } : {}), hint: `set both: rate_limit: { max: 60, window_ms: 60000 } is 60 requests a minute per caller (${FIELDS[production.missing].env})` });
  }
  if (diagnostics.length > 0) throw new ProxyConfigError(diagnostics);

  const get = <T>(name: FieldName, fallback: T): T => (checked.has(name) ? (checked.get(name) as T) : fallback);
  const redisUrl = get<string | undefined>('redis.url', undefined);
  const anthropicUpstream = get<string | undefined>('anthropic_upstream', undefined);
  const passthrough = get<string[] | undefined>('passthrough', undefined);
  const refusalMessage = get<string | undefined>('refusal_message', undefined);
  return {
    upstream: get('upstream', ''),
    ...(anthropicUpstream === undefined ? {} : { anthropicUpstream }),
    ...(passthrough === undefined ? {} : { passthrough }),
    workflow: defaultEntry?.workflow ?? get('workflow', ''),
    workflowId: defaultEntry?.id ?? 'default',
    ...(defaultEntry ? (defaultEntry.rulebase ? { rulebase: defaultEntry.rulebase } : {}) : checked.has('rulebase') ? { rulebase: get('rulebase', '') } : {}),
    // An entry without `loops:` takes the top-level setting (not the default entry's).
    workflows: entries.filter((entry) => !entry.default).map((entry) => ({ ...entry, loops: entry.loops ?? semantic.loops, ...(entry.loopOptions ?? semantic.loopOptions ? { loopOptions: entry.loopOptions ?? semantic.loopOptions! } : {}) })),
    port: get('port', DEFAULT_PROXY_PORT),
    host: get('host', DEFAULT_PROXY_HOST),
    loops: defaultEntry?.loops ?? semantic.loops,
    strict: get('strict', true),
    proxyKeys: get<string[]>('proxy_keys', []),
    requireSessionId: get('require_session_id', false),
    factSummary: get('fact_summary', true),
    textPolicy: get<'stream' | 'hold'>('text_policy', 'stream'),
    ...(refusalMessage === undefined ? {} : { refusalMessage }),
    limits: {
      bodyBytes: get('limits.body_bytes', DEFAULT_BODY_LIMIT_BYTES),
      upstreamTimeoutMs: get('limits.upstream_timeout_ms', DEFAULT_UPSTREAM_TIMEOUT_MS),
      holdTextChars: get('limits.hold_text_chars', DEFAULT_HOLD_TEXT_CHARS),
      holdTextMs: get('limits.hold_text_ms', DEFAULT_HOLD_TEXT_MS),
    },
    ...(production as ProductionConfig),
    ...(redisUrl === undefined
      ? {}
      : { redis: { url: redisUrl, ...(checked.has('redis.key_prefix') ? { keyPrefix: get('redis.key_prefix', '') } : {}), ...(checked.has('redis.ttl_ms') ? { ttlMs: get('redis.ttl_ms', 0) } : {}), ...(checked.has('redis.command_timeout_ms') ? { commandTimeoutMs: get('redis.command_timeout_ms', 0) } : {}) } }),
    ...((defaultEntry?.loopOptions ?? semantic.loopOptions) ? { loopOptions: defaultEntry?.loopOptions ?? semantic.loopOptions! } : {}),
    ...(semantic.embeddings ? { embeddings: semantic.embeddings } : {}),
    ...(judge ? { judge } : {}),
    ...(extensions ?? {}),
  };
}

/** Reads the YAML file into `values`, reporting syntax errors and unknown keys with their positions. */
async function readFile(configPath: string, values: Map<FieldName, { value: unknown; origin: Origin }>, diagnostics: Diagnostic[], special: { workflows?: ReadWorkflows }): Promise<void> {
  const { readFile: read } = await import('node:fs/promises');
  let text: string;
  try {
    text = await read(configPath, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    diagnostics.push({ severity: 'error', code: 'unreadable-file', message: `cannot read config file '${configPath}': ${reason}`, path: '', source: configPath });
    return;
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const at = (node: Node | null | undefined) => {
    const offset = node?.range?.[0];
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  for (const error of document.errors) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    diagnostics.push({ severity: 'error', code: 'yaml-syntax', message: error.message.split('\n')[0]!, path: '', source: configPath, line, column: col });
  }
  if (document.errors.length > 0) return;
  const root = document.contents;
  if (root === null || root === undefined) return;
  if (!isMap(root)) {
    diagnostics.push({ severity: 'error', code: 'invalid-value', message: 'the config file must be a mapping of keys (upstream:, workflow:, ...)', path: '', source: configPath, ...at(root) });
    return;
  }
  const base = dirname(resolve(configPath));
  const known = Object.keys(FIELDS);
  let workflowsNode: { node: Node | null } | undefined;
  const visit = (map: YAMLMap, prefix: string) => {
    for (const pair of map.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const path = prefix ? `${prefix}.${key}` : key;
      const valueNode = pair.value as Node | null;
      if (!prefix && key === 'workflows') {
        // A list with a shape of its own, read in config/workflows.ts.
        workflowsNode = { node: valueNode ?? (pair.key as Node) };
        continue;
      }
      if (SECTIONS.has(path) && isMap(valueNode)) {
        visit(valueNode, path);
        continue;
      }
      if (SECTIONS.has(path) && !(path in FIELDS)) {
        const keys = [...new Set(known.filter((name) => name.startsWith(`${path}.`)).map((name) => name.slice(path.length + 1).split('.')[0]!))];
        diagnostics.push({ severity: 'error', code: 'invalid-value', message: `'${path}' must be a section of keys: received ${JSON.stringify(valueNode ? (valueNode as Node).toJSON() : null)}`, path, source: configPath, ...at(valueNode ?? (pair.key as Node)), hint: `write it as '${key}:' followed by indented keys (${keys.join(', ')})` });
        continue;
      }
      if (!(path in FIELDS)) {
        const suggestion = closestName(path, [...known, ...SECTIONS, 'workflows']);
        diagnostics.push({ severity: 'error', code: 'unknown-key', message: `unknown key '${path}'`, path, source: configPath, ...at(pair.key as Node), hint: suggestion ? `did you mean '${suggestion}'?` : `known keys: ${known.join(', ')}` });
        continue;
      }
      const items = isSeq(valueNode) ? valueNode.items.map((item) => at(item as Node)).filter((place): place is { line: number; column: number } => place.line !== undefined) : undefined;
      values.set(path as FieldName, { value: valueNode ? (valueNode as Node).toJSON() : null, origin: { source: configPath, path, base, ...at(valueNode), ...(items ? { items } : {}) } });
    }
  };
  visit(root, '');
  if (workflowsNode) special.workflows = await readWorkflowsNode(workflowsNode.node, { source: configPath, base, lineOf: (node) => { const { line, column } = at(node); return line === undefined ? undefined : { line, column: column! }; } }, diagnostics);
}

/** Checks one value of a kind; strings from the environment and flags are converted. */
async function check(kind: Exclude<Kind, 'custom'>, value: unknown, origin: Origin): Promise<{ value: unknown } | { problem: string }> {
  switch (kind) {
    case 'url':
    case 'http-url':
    case 'anthropic-url': {
      const parsed = httpUrl(value);
      return 'problem' in parsed ? parsed : { value };
    }
    case 'redis-url':
      return typeof value === 'string' && /^rediss?:\/\/\S+$/.test(value) ? { value } : { problem: 'not a Redis URL' };
    case 'file':
    case 'rules-file': {
      if (typeof value !== 'string' || value === '') return { problem: 'not a file path' };
      const path = resolve(origin.base, value);
      try {
        await access(path);
      } catch {
        return { problem: `no such file (${path})` };
      }
      return { value: path };
    }
    case 'port':
    case 'positive-integer': {
      const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
      if (typeof number !== 'number' || !Number.isInteger(number)) return { problem: 'not a whole number' };
      if (kind === 'port' ? number < 0 || number > 65_535 : number <= 0) return { problem: 'out of range' };
      return { value: number };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { value };
      if (value === 'true' || value === '1') return { value: true };
      if (value === 'false' || value === '0') return { value: false };
      return { problem: 'not a boolean' };
    case 'string':
      return typeof value === 'string' && value !== '' ? { value } : { problem: 'not a non-empty string' };
    case 'text-policy':
      return value === 'stream' || value === 'hold' ? { value } : { problem: 'not stream or hold' };
    case 'path-prefixes': {
      const list = typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;
      if (!Array.isArray(list)) return { problem: 'not a list of path prefixes' };
      const prefixes: string[] = [];
      for (const item of list) {
        const prefix = typeof item === 'string' ? normalisePrefix(item) : undefined;
        if (prefix === undefined) return { problem: `${JSON.stringify(item)} is no path under /v1` };
        prefixes.push(prefix);
      }
      return { value: prefixes };
    }
    case 'string-list': {
      const list = typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;
      if (!Array.isArray(list) || !list.every((item) => typeof item === 'string' && item.trim() !== '')) return { problem: 'not a list of non-empty strings' };
      // An empty list would start an open proxy while the operator meant to require keys.
      return list.length > 0 ? { value: list } : { problem: 'an empty list' };
    }
  }
}

/** A value as an error shows it: a secret (a proxy key, a Redis URL's password) only by its shape. */
function shown(name: FieldName, value: unknown): string {
  // Any URL with a user and password (an embeddings endpoint, say) is shown without them.
  if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^\s]*@/i.test(value)) return JSON.stringify(redactUrl(value));
  if (!FIELDS[name].secret) return JSON.stringify(value);
  if (typeof value === 'string' && FIELDS[name].kind === 'redis-url') return JSON.stringify(redactUrl(value));
  const items: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
  const lengths = items.map((item) => (typeof item === 'string' ? `${item.trim().length} characters` : `a ${typeof item}`));
  return `${items.length} value(s) (${lengths.join(', ')}; not shown)`;
}

/** One line per diagnostic, as `panoptes serve` prints them. */
export function formatConfigError(error: ProxyConfigError): string {
  return error.diagnostics.map((diagnostic) => formatDiagnostic(diagnostic)).join('\n');
}
