import type { Rulebase } from '../rules/index.js';
import { compiledConstraints } from '../workflow/constraints.js';
import type { Workflow } from '../workflow/index.js';
import type { Scenario, ScenarioCoverage, ScenarioResult } from './types.js';

/**
 * What no scenario exercised. A constraint is exercised when some scenario of its workflow violated it,
 * refused a call with it, or a trace entered its trigger (for types with one), its target (`eventually`, `never`), or a state outside its
 * condition (`always`). A constraint no scenario fires is tested only vacuously. An intervention is exercised when
 * it was applied; a guard, when the rules checked a call of its tool.
 */
export function coverageOf(
  results: readonly ScenarioResult[],
  workflows: ReadonlyMap<string, Workflow>,
  rulebases: ReadonlyMap<string, Rulebase>,
  scenarios: readonly Scenario[],
  defaultWorkflow?: string,
): ScenarioCoverage {
  const coverage: ScenarioCoverage = { constraints: {}, interventions: {}, guards: {} };
  for (const [file, workflow] of workflows) {
    const runs = results.filter((result, index) => result.status !== 'error' && (scenarios[index]!.workflow ?? defaultWorkflow) === file);
    const states = new Set(runs.flatMap((run) => run.actual.trace));
    const violated = new Set(runs.flatMap((run) => [...run.actual.violations, ...run.actual.refusedBy]));
    coverage.constraints[file] = compiledConstraints(workflow)
      .filter((compiled) => {
        if (violated.has(compiled.constraint.name)) return false;
        const fires = compiled.trigger ?? compiled.target;
        return ![...states].some((state) => (compiled.condition ? !compiled.condition.matches(state) : fires!.matches(state)));
      })
      .map((compiled) => compiled.constraint.name);
    const applied = new Set(runs.flatMap((run) => run.actual.interventions));
    coverage.interventions[file] = Object.keys(workflow.definition.interventions).filter((name) => !applied.has(name));
  }
  for (const [file, rulebase] of rulebases) {
    const checked = new Set(results.filter((_, index) => scenarios[index]!.rules?.file === file).flatMap((run) => run.actual.guarded));
    coverage.guards[file] = [...rulebase.guards.keys()].filter((tool) => !checked.has(tool));
  }
  return coverage;
}
