import type { ScenarioExpectations, ScenarioMismatch, ScenarioResult } from './types.js';

/**
 * The expectations that did not hold, in the file's order of keys. Lists compare in order, except `violations`,
 * which is a set. A `loops` number compares the count.
 */
export function compareExpectations(expect: ScenarioExpectations, actual: ScenarioResult['actual']): ScenarioMismatch[] {
  const mismatches: ScenarioMismatch[] = [];
  const check = (field: string, expected: unknown, got: unknown) => {
    if (JSON.stringify(expected) !== JSON.stringify(got)) mismatches.push({ field, expected, actual: got });
  };
  for (const [constraint, verdict] of Object.entries(expect.verdicts ?? {})) {
    check(`verdicts.${constraint}`, verdict, actual.verdicts[constraint] ?? '(no such constraint)');
  }
  if (expect.violations) check('violations', [...expect.violations].sort(), [...actual.violations].sort());
  if (expect.refused) check('refused', expect.refused, actual.refused);
  if (expect.loops !== undefined) check('loops', expect.loops, typeof expect.loops === 'number' ? actual.loops.length : actual.loops);
  if (expect.finalState !== undefined) check('final_state', expect.finalState, actual.finalState);
  if (expect.trace) check('trace', expect.trace, actual.trace);
  if (expect.interventions) check('interventions', expect.interventions, actual.interventions);
  return mismatches;
}
