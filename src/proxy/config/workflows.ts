/**
 * The `workflows:` key of the serve configuration: a list of workflows, each with the selector that picks it, an
 * optional rulebase and loop detection; exactly one is the default (`default: true`, or the top-level `workflow:`).
 * Read with positions from the YAML file, checked with the rest of the configuration, every problem with its line,
 * field and fix (unknown keys, a second default or none, selectors that can never match).
 * @module
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isMap, isScalar, isSeq, type Node, type YAMLMap } from 'yaml';
import { closestName, type Diagnostic } from '../../diagnostics/index.js';
import { MONITORED_ROUTES, normalisePrefix } from '../request-path.js';
import { proxyKeyId, type WorkflowSelector } from '../workflows/index.js';
import type { Origin } from './field.js';
import { SEMANTIC_FIELDS, type ServeLoopOptions } from './semantic.js';
import { isUnderPrefix } from '../workflows/selection.js';
import { isWorkflowId } from '../../workflow-choice/index.js';

/** One checked entry of `workflows:`. */
export interface WorkflowEntry {
  id: string;
  /** Absolute path of the workflow file. */
  workflow: string;
  /** Absolute path of the rulebase file. */
  rulebase?: string;
  select: WorkflowSelector;
  /** Loop detection for this workflow; the top-level `loops` when absent. */
  loops?: boolean;
  /** Its loop settings: the top-level `loops:` section's, with those of its own `loops:` section over them. */
  loopOptions?: ServeLoopOptions;
  default: boolean;
}

/** An entry as read, before the checks that need the whole configuration. */
interface ReadEntry {
  entry: Partial<WorkflowEntry>;
  /** The keys of its `loops:` section, by their top-level name (`loops.threshold`), unchecked, with their places. */
  loopSettings?: Array<{ name: string; value: unknown; origin: Origin }>;
  line?: Pos;
  /** Where each field's value sits, for its diagnostic. */
  lines: Record<string, Pos | undefined>;
}

/** The `workflows:` list as read from the file, with what the checks need to place their diagnostics. */
export interface ReadWorkflows {
  entries: ReadEntry[];
  line?: Pos;
  source: string;
}

const ENTRY_KEYS = ['id', 'workflow', 'rulebase', 'select', 'default', 'loops'] as const;
const SELECT_KEYS = ['route', 'header', 'model', 'key'] as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Reads `workflows:` (its YAML node) into entries, reporting shapes and unknown keys at their lines. Files are
 * resolved against `base` and must exist.
 */
export async function readWorkflowsNode(node: Node | null, { source, base, lineOf }: { source: string; base: string; lineOf(node: Node | null | undefined): Pos | undefined }, diagnostics: Diagnostic[]): Promise<ReadWorkflows> {
  const read: ReadWorkflows = { entries: [], source, ...at(lineOf(node)) };
  const problem = (path: string, line: Pos | undefined, message: string, hint: string, code = 'invalid-value') => diagnostics.push({ severity: 'error', code, message, path, source, ...(line ?? {}), hint });
  if (!isSeq(node)) {
    problem('workflows', lineOf(node), 'workflows must be a list of workflows', 'write `workflows:` then one `- id: ..., workflow: ..., select: {...}` per workflow (docs/proxy.md, "Several workflows")');
    return read;
  }
  for (const [index, item] of node.items.entries()) {
    const path = `workflows[${index}]`;
    const itemNode = item as Node;
    const entry: Partial<WorkflowEntry> = {};
    const lines: Record<string, Pos | undefined> = {};
    const readEntry: ReadEntry = { entry, lines, ...at(lineOf(itemNode)) };
    read.entries.push(readEntry);
    if (!isMap(itemNode)) {
      problem(path, lineOf(itemNode), `${path} must be a mapping (id:, workflow:, select:, ...)`, 'write each workflow as `- id: billing` with its keys indented under it');
      continue;
    }
    for (const pair of (itemNode as YAMLMap).items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const value = pair.value as Node | null;
      const field = `${path}.${key}`;
      const line = lineOf(value) ?? lineOf(pair.key as Node);
      lines[key] = line;
      const plain: unknown = value ? value.toJSON() : null;
      switch (key) {
        case 'id':
          if (isWorkflowId(plain)) entry.id = plain;
          else problem(field, line, `not a workflow id: received ${JSON.stringify(plain)}`, 'an id of letters, digits, _ and - (it names the workflow in metrics and logs)');
          break;
        case 'workflow':
        case 'rulebase': {
          const what = key === 'workflow' ? 'a workflow YAML file' : 'a rulebase (.rules) file';
          if (typeof plain !== 'string' || plain === '') {
            problem(field, line, `not a file path: received ${JSON.stringify(plain)}`, `the path of ${what} (relative to the config file)`);
            break;
          }
          const file = resolve(base, plain);
          try {
            await access(file);
            entry[key] = file;
          } catch {
            problem(field, line, `no such file (${file}): received ${JSON.stringify(plain)}`, `the path of ${what} (relative to the config file)`);
          }
          break;
        }
        case 'loops':
          if (isMap(value)) readEntry.loopSettings = readLoopSettings(value, field, { source, base }, lineOf, problem);
          else if (typeof plain === 'boolean') entry.loops = plain;
          else problem(field, line, `not a boolean or a section: received ${JSON.stringify(plain)}`, 'true, false, or a section of loop settings as the top-level loops: takes (threshold, window, ...)');
          break;
        case 'default':
          if (typeof plain === 'boolean') entry.default = plain;
          else problem(field, line, `not a boolean: received ${JSON.stringify(plain)}`, 'true or false');
          break;
        case 'select':
          entry.select = readSelect(value, field, lineOf, problem);
          break;
        default: {
          const suggestion = closestName(key, [...ENTRY_KEYS]);
          problem(field, lineOf(pair.key as Node), `unknown key '${field}'`, suggestion ? `did you mean '${suggestion}'?` : `a workflow takes: ${ENTRY_KEYS.join(', ')}`, 'unknown-key');
        }
      }
    }
    for (const required of ['id', 'workflow'] as const) {
      if (!(required in lines)) problem(`${path}.${required}`, lineOf(itemNode), `'${required}' is required in ${path}`, required === 'id' ? 'give the workflow an id: `id: billing`' : 'name its workflow file: `workflow: billing.yaml`', 'missing-key');
    }
  }
  return read;
}

/** The keys of an entry's `loops:` section, named as the top-level section's keys are; unknown ones reported. */
function readLoopSettings(node: YAMLMap, path: string, { source, base }: { source: string; base: string }, lineOf: (node: Node | null | undefined) => Pos | undefined, problem: (path: string, line: Pos | undefined, message: string, hint: string, code?: string) => void): Array<{ name: string; value: unknown; origin: Origin }> {
  const known = Object.keys(SEMANTIC_FIELDS).filter((name) => name.startsWith('loops.')).map((name) => name.slice('loops.'.length));
  const settings: Array<{ name: string; value: unknown; origin: Origin }> = [];
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const value = pair.value as Node | null;
    if (!known.includes(key)) {
      const suggestion = closestName(key, known);
      problem(`${path}.${key}`, lineOf(pair.key as Node), `unknown key '${path}.${key}'`, suggestion ? `did you mean '${suggestion}'?` : `the loop settings: ${known.join(', ')}`, 'unknown-key');
      continue;
    }
    settings.push({ name: `loops.${key}`, value: value ? value.toJSON() : null, origin: { source, path: `${path}.${key}`, base, ...(lineOf(value) ?? {}) } });
  }
  return settings;
}

/** Reads a `select:` mapping; bad shapes are reported, and what can be read is kept. */
function readSelect(node: Node | null, path: string, lineOf: (node: Node | null | undefined) => Pos | undefined, problem: (path: string, line: Pos | undefined, message: string, hint: string, code?: string) => void): WorkflowSelector {
  const select: WorkflowSelector = {};
  if (!isMap(node)) {
    problem(path, lineOf(node), `${path} must be a mapping of conditions`, `any of ${SELECT_KEYS.join(', ')}, e.g. select: { header: { name: x-team, value: billing } }`);
    return select;
  }
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const value = pair.value as Node | null;
    const field = `${path}.${key}`;
    const line = lineOf(value) ?? lineOf(pair.key as Node);
    const plain: unknown = value ? value.toJSON() : null;
    switch (key) {
      case 'route': {
        const prefix = typeof plain === 'string' ? normalisePrefix(plain) : undefined;
        if (prefix === undefined) problem(field, line, `not a path under /v1: received ${JSON.stringify(plain)}`, `a route prefix such as /v1/responses (the monitored routes: ${MONITORED_ROUTES.join(', ')})`);
        else select.route = prefix;
        break;
      }
      case 'header': {
        const header = typeof plain === 'object' && plain !== null && !Array.isArray(plain) ? (plain as Record<string, unknown>) : undefined;
        const extra = header ? Object.keys(header).filter((name) => name !== 'name' && name !== 'value') : [];
        if (!header || typeof header.name !== 'string' || !HEADER_NAME.test(header.name) || typeof header.value !== 'string' || header.value === '' || extra.length > 0) {
          problem(field, line, `not a header and its value: received ${JSON.stringify(plain)}`, 'header: { name: x-team, value: billing } (a header name, and the exact value that selects this workflow)');
        } else select.header = { name: header.name.toLowerCase(), value: header.value };
        break;
      }
      case 'model':
        if (typeof plain === 'string' && plain !== '') select.model = plain;
        else problem(field, line, `not a model name or glob: received ${JSON.stringify(plain)}`, "a model name, or a glob with * and ?: 'gpt-4o*'");
        break;
      case 'key':
        if (typeof plain === 'string' && plain !== '') select.key = plain;
        else problem(field, line, `not a proxy key id: received ${JSON.stringify(plain)}`, 'the id of one of proxy_keys: key- and the first 12 hex digits of its SHA-256 (printf %s "$KEY" | sha256sum | cut -c1-12)');
        break;
      default: {
        const suggestion = closestName(key, [...SELECT_KEYS]);
        problem(field, lineOf(pair.key as Node), `unknown key '${field}'`, suggestion ? `did you mean '${suggestion}'?` : `a selector takes: ${SELECT_KEYS.join(', ')}`, 'unknown-key');
      }
    }
  }
  return select;
}

/** What the checks of `workflows:` need of the rest of the configuration. */
export interface WorkflowsContext {
  /** Whether the top-level `workflow:` is set (then it is the default). */
  topLevelWorkflow: boolean;
  proxyKeys: readonly string[];
  anthropicUpstream: boolean;
}

/**
 * The checks that need the whole list and the rest of the configuration: one default, unique ids, and no selector
 * that can never match (a route no generation is served on, a key the proxy does not have, a selector an earlier
 * entry already takes, none at all).
 */
export function checkWorkflows(read: ReadWorkflows, context: WorkflowsContext, diagnostics: Diagnostic[]): WorkflowEntry[] {
  const { source } = read;
  const problem = (path: string, line: Pos | undefined, message: string, hint: string, code = 'invalid-value') => diagnostics.push({ severity: 'error', code, message, path, source, ...(line ?? {}), hint });
  const defaults = read.entries.filter(({ entry }) => entry.default === true);
  if (context.topLevelWorkflow) {
    for (const { entry, lines } of defaults) problem(`workflows[${read.entries.findIndex((item) => item.entry === entry)}].default`, lines.default, `two defaults: the top-level workflow: and workflow '${entry.id ?? '?'}'`, 'keep one: remove the top-level workflow:, or default: true from this entry');
  } else if (defaults.length === 0) {
    problem('workflows', read.line, 'no default workflow: a request no selector matches would have none', 'mark one entry default: true, or set the top-level workflow:', 'missing-key');
  } else {
    const first = defaults[0]!;
    for (const { entry, lines } of defaults.slice(1)) problem(`workflows[${read.entries.findIndex((item) => item.entry === entry)}].default`, lines.default, `a second default: workflow '${entry.id ?? '?'}' (the first is '${first.entry.id ?? '?'}'${first.lines.default ? ` at line ${first.lines.default.line}` : ''})`, 'keep default: true on one entry only');
  }
  const keyIds = context.proxyKeys.map(proxyKeyId);
  const seen = new Map<string, number>();
  const selectors: Array<{ key: string; id: string }> = [];
  read.entries.forEach(({ entry, lines, line }, index) => {
    const path = `workflows[${index}]`;
    if (entry.id !== undefined) {
      if (context.topLevelWorkflow && entry.id === 'default') problem(`${path}.id`, lines.id, "the id 'default' names the top-level workflow:", 'give this workflow another id');
      if (seen.has(entry.id)) problem(`${path}.id`, lines.id, `the id '${entry.id}' is taken by workflows[${seen.get(entry.id)}]`, 'give each workflow its own id');
      else seen.set(entry.id, index);
    }
    const select = entry.select ?? {};
    const conditions = Object.keys(select).length;
    if (entry.default === true) {
      if (conditions > 0) problem(`${path}.select`, lines.select, 'the default workflow takes a select:', 'the default serves every request no other selector matches: remove select:, or default: true');
      return;
    }
    if (conditions === 0) {
      if (!diagnostics.some((diagnostic) => diagnostic.source === source && diagnostic.path.startsWith(`${path}.select`))) problem(`${path}.select`, lines.select ?? line, `workflow '${entry.id ?? '?'}' has no select: conditions, so it would take every request`, 'give it a select: (route, header, model or key), or make it the default with default: true', 'missing-key');
      return;
    }
    if (select.route !== undefined && !MONITORED_ROUTES.some((route) => isUnderPrefix(route, select.route!))) {
      problem(`${path}.select.route`, lines.select, `the route ${select.route} serves no monitored generation, so it never selects a workflow`, `a prefix of one of ${MONITORED_ROUTES.join(', ')} (or /v1 for all)`);
    } else if (select.route !== undefined && !context.anthropicUpstream && isUnderPrefix(select.route, '/v1/messages')) {
      problem(`${path}.select.route`, lines.select, `the route ${select.route} is not served: anthropic_upstream is not set`, 'set anthropic_upstream, or select another route');
    }
    if (select.key !== undefined) {
      if (keyIds.length === 0) problem(`${path}.select.key`, lines.select, 'a key selector on an open proxy: no request carries a proxy key', 'set proxy_keys, or select by something else');
      else if (!keyIds.includes(select.key)) problem(`${path}.select.key`, lines.select, `'${select.key}' is the id of none of proxy_keys`, `the ids of the configured keys: ${keyIds.join(', ')}`);
    }
    const key = JSON.stringify([select.route, select.header?.name, select.header?.value, select.model, select.key]);
    const earlier = selectors.find((other) => other.key === key);
    if (earlier) problem(`${path}.select`, lines.select, `workflow '${entry.id ?? '?'}' can never be selected: workflow '${earlier.id}' before it has the same selector`, 'change its selector, or remove one of the two');
    selectors.push({ key, id: entry.id ?? '?' });
  });
  return read.entries.map(({ entry }) => ({ ...entry, select: entry.select ?? {}, default: entry.default === true }) as WorkflowEntry);
}

/** The unchecked loop settings of each entry (by position), for the configuration to check as its own keys. */
export function loopSettingsOf(read: ReadWorkflows): Array<Array<{ name: string; value: unknown; origin: Origin }> | undefined> {
  return read.entries.map((entry) => entry.loopSettings);
}

function at(line: Pos | undefined): { line?: Pos } {
  return line === undefined ? {} : { line };
}

/** Where a value sits in the config file. */
type Pos = { line: number; column: number };
