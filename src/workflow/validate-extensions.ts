import type * as z from 'zod';
import { didYouMean } from '../diagnostics/index.js';
import type { Registry } from '../registry/registry.js';
import type { ConstraintTypeDef } from '../temporal/index.js';
import { listNames, type Finding } from './findings.js';
import type { Path } from './path.js';
import type { ConstraintDefinition, WorkflowDefinition } from './types.js';

/** The keys only the built-in types read; a registered type reads its options under `options:`. */
const BUILT_IN_KEYS = ['trigger', 'target', 'condition', 'each'] as const;

/**
 * Checks a constraint of a registered type: no built-in keys, its `options` against the type's schema (each issue
 * at its own field), and the state names its `states` reports.
 */
export function checkRegisteredConstraint(
  constraint: ConstraintDefinition,
  type: ConstraintTypeDef<any, any>,
  item: Path,
  report: (finding: Finding) => void,
  checkState: (name: string, path: Path) => void,
): void {
  for (const key of BUILT_IN_KEYS) {
    if (constraint[key] === undefined) continue;
    report({ severity: 'error', code: 'misplaced-option', message: `\`${key}\` is read by the built-in types only; type '${type.name}' reads its options under \`options:\``, path: [...item, key], at: 'key', hint: `move it under \`options:\`${keysHint(type.schema)}` });
  }
  const path = [...item, 'options'];
  const parsed = checkOptions(type.schema, constraint.options, path, `type '${type.name}'`, report);
  if (!parsed.ok || !type.states) return;
  let names: readonly string[];
  try {
    names = type.states(parsed.value);
    if (!Array.isArray(names)) throw new Error('`states` returned no array');
  } catch (error) {
    report({ severity: 'error', code: 'constraint-type-failed', message: `type '${type.name}' failed to list the states its options name: ${(error as Error)?.message ?? String(error)}`, path, hint: 'fix the `states` function of the constraint type' });
    return;
  }
  for (const name of names) checkState(String(name), path);
}

/**
 * Checks each intervention's strategy against the registry and its `options` against the strategy's schema.
 * @returns the parsed options by intervention name, to keep on the workflow.
 */
export function checkStrategies(definition: WorkflowDefinition, registry: Registry, report: (finding: Finding) => void): Map<string, unknown> {
  const parsedOptions = new Map<string, unknown>();
  for (const [name, intervention] of Object.entries(definition.interventions)) {
    const item: Path = ['interventions', name];
    const strategy = registry.strategy(intervention.strategy);
    if (!strategy) {
      const known = registry.strategyNames();
      const suggestion = didYouMean(intervention.strategy, known);
      report({ severity: 'error', code: 'unknown-strategy', message: `unknown intervention strategy '${intervention.strategy}'`, path: [...item, 'strategy'], hint: `known strategies: ${listNames(known)}${suggestion ? `; ${suggestion}` : ''}; a strategy of your own must be registered (defineInterventionStrategy) in the registry the workflow is loaded with, or given to the CLI with \`--module\` (the proxy: \`modules:\`)` });
      continue;
    }
    if (!strategy.schema) {
      if (intervention.options !== undefined) report({ severity: 'error', code: 'unexpected-options', message: `strategy '${strategy.name}' takes no options`, path: [...item, 'options'], at: 'key', hint: 'remove `options`' });
      continue;
    }
    const parsed = checkOptions(strategy.schema, intervention.options, [...item, 'options'], `strategy '${strategy.name}'`, report);
    if (parsed.ok) parsedOptions.set(name, parsed.value);
  }
  return parsedOptions;
}

function checkOptions(schema: z.ZodType, value: unknown, path: Path, owner: string, report: (finding: Finding) => void): { ok: true; value: unknown } | { ok: false } {
  let parsed: ReturnType<z.ZodType['safeParse']>;
  try {
    parsed = schema.safeParse(value ?? {});
  } catch (error) {
    report({ severity: 'error', code: 'invalid-options', message: `the schema of ${owner} threw: ${(error as Error)?.message ?? String(error)}`, path, hint: `fix the schema of ${owner}` });
    return { ok: false };
  }
  if (parsed.success) return { ok: true, value: parsed.data };
  if (value === undefined) {
    report({ severity: 'error', code: 'missing-options', message: `${owner} needs \`options\``, path, hint: `add \`options:\`${keysHint(schema).replace('; it takes:', ' with')}` });
    return { ok: false };
  }
  for (const issue of parsed.error.issues) {
    const field = issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
    const where = field.length === 0 ? '`options`' : `\`${field.join('.')}\``;
    report({ severity: 'error', code: 'invalid-options', message: `${owner}: ${where}: ${issue.message}`, path: [...path, ...field], hint: `${owner} rejects these options${keysHint(schema)}` });
  }
  return { ok: false };
}

/** `; it takes: state, max`, when the schema is an object with known keys. */
function keysHint(schema: z.ZodType): string {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return shape && typeof shape === 'object' ? `; it takes: ${listNames(Object.keys(shape))}` : '';
}
