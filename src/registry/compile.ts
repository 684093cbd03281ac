import { compileConstraint, compileCustomConstraint, type CompiledConstraint, type TemporalConstraint } from '../temporal/index.js';
import { PanoptesError } from '../errors/index.js';
import type { ConstraintDefinition } from '../workflow/types.js';
import { defaultRegistry, type Registry } from './registry.js';

// The registry each workflow was loaded with: its constraints compile against it, and a monitor of it uses it.
const registries = new WeakMap<object, Registry>();

/** Records the registry a workflow was checked against. @internal the loader's */
export function bindRegistry(workflow: object, registry: Registry): void {
  registries.set(workflow, registry);
}

/** The registry a workflow was loaded with (`loadWorkflow({ registry })`), or `defaultRegistry`. */
export function registryOf(workflow: object): Registry {
  return registries.get(workflow) ?? defaultRegistry;
}

/**
 * Compiles one constraint through its type's registry entry: a built-in into the incremental monitor the
 * anticipation searches also read, a registered type into its evaluator with its options parsed by its schema.
 * @throws {PanoptesError} `INVALID_WORKFLOW` when the type is not in the registry or the options fail its schema
 * (a workflow that loaded against this registry never does).
 */
export function compileWithRegistry(constraint: ConstraintDefinition, registry: Registry): CompiledConstraint {
  if (registry.isBuiltInConstraintType(constraint.type)) return compileConstraint(constraint as TemporalConstraint);
  const definition = registry.constraintType(constraint.type);
  if (!definition) throw new PanoptesError('INVALID_WORKFLOW', `Constraint '${constraint.name}' has type '${constraint.type}', which this registry does not hold; register it, or load the workflow with the registry that does.`);
  const parsed = definition.schema.safeParse(constraint.options ?? {});
  if (!parsed.success) throw new PanoptesError('INVALID_WORKFLOW', `Constraint '${constraint.name}': its options do not fit type '${constraint.type}': ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
  let names: readonly string[] = [];
  try {
    names = definition.states?.(parsed.data) ?? [];
  } catch {
    // Only transparent states read the names; a throwing `states` was reported at load.
  }
  return compileCustomConstraint(constraint, { definition, options: parsed.data, names });
}
