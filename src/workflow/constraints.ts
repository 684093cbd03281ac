import { compileWithRegistry, registryOf } from '../registry/compile.js';
import type { CompiledConstraint } from '../temporal/index.js';
import type { Workflow } from './workflow.js';

const cache = new WeakMap<Workflow, readonly CompiledConstraint[]>();

/**
 * The workflow's constraints compiled once, in file order, each through its type's entry in the registry the
 * workflow was loaded with (built-ins included).
 */
export function compiledConstraints(workflow: Workflow): readonly CompiledConstraint[] {
  let compiled = cache.get(workflow);
  if (!compiled) {
    const registry = registryOf(workflow);
    compiled = workflow.definition.constraints.map((constraint) => compileWithRegistry(constraint, registry));
    cache.set(workflow, compiled);
  }
  return compiled;
}
