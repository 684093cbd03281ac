import { compileConstraint, type CompiledConstraint } from '../temporal/index.js';
import type { Workflow } from './workflow.js';

const cache = new WeakMap<Workflow, readonly CompiledConstraint[]>();

/** The workflow's constraints compiled once (selectors to predicates), in file order. */
export function compiledConstraints(workflow: Workflow): readonly CompiledConstraint[] {
  let compiled = cache.get(workflow);
  if (!compiled) {
    compiled = workflow.definition.constraints.map((constraint) => compileConstraint(constraint));
    cache.set(workflow, compiled);
  }
  return compiled;
}
