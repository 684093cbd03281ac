import { findAlternation } from './alternation.js';
import { attachResults, callRecord } from './call-history.js';
import { breakMonologue, observeMonologue } from './monologue.js';
import type { ResolvedLoopOptions } from './options.js';
import type { PreparedStep } from './prepare-step.js';
import { findRepeatedAction } from './repeated-action.js';
import { findRepeatedError } from './repeated-error.js';
import { findRepeatedText } from './repeated-text.js';
import type { LoopSession } from './session.js';
import { findToolCycle } from './tool-cycle.js';
import type { LoopFinding } from './types.js';

/** What the structural checks need from the options. @internal */
export type StructuralOptions = Pick<
  ResolvedLoopOptions,
  'repeatedAction' | 'repeatedActionWarning' | 'repeatedError' | 'monologue' | 'alternation' | 'toolCycle' | 'repeatedText'
>;

/**
 * Records a prepared step in the session and runs the structural checks it can complete. Deterministic, no
 * embeddings. Findings come in priority order (errors, repeated actions, tool cycles, alternation, monologue,
 * repeated text), which decides the report's kind when two loops call for the same action.
 * @returns The findings and the number of the step they concern.
 * @internal
 */
export function checkStructure(session: LoopSession, step: PreparedStep, options: StructuralOptions): { findings: LoopFinding[]; stepNumber: number } {
  if (step.kind === 'empty') return { findings: [], stepNumber: session.steps };
  if (step.kind === 'results') {
    const answered = attachResults(session.calls, session.awaiting, step.results);
    return { findings: answered ? resultFindings(session, options) : [], stepNumber: answered?.step ?? session.steps };
  }
  const stepNumber = ++session.steps;
  if (step.kind === 'exempt') {
    breakMonologue(session.monologue); // a poll is something in between
    // Its own results pair with nothing (exempt calls are not recorded); results of earlier calls still count.
    const answered = step.results.length > 0 && attachResults(session.calls, session.awaiting, step.results);
    return { findings: answered ? resultFindings(session, options) : [], stepNumber };
  }
  const findings: LoopFinding[] = [];
  let cycle: LoopFinding | null = null;
  if (step.calls.length > 0) {
    session.awaiting = step.calls.map((call) => callRecord(call, stepNumber));
    for (const record of session.awaiting) {
      session.calls.push(record);
      // Checked after every call, so a cycle completed by a call in the middle of a step is still caught.
      if (options.toolCycle && cycle === null) cycle = findToolCycle(session.calls, options.toolCycle);
    }
  }
  if (step.results.length > 0 && attachResults(session.calls, session.awaiting, step.results)) findings.push(...resultFindings(session, options));
  if (step.calls.length > 0) findings.push(...callFindings(session, options));
  if (cycle) findings.push(cycle);
  if (options.alternation) {
    session.recent.push({ key: step.key, step: stepNumber });
    const alternation = findAlternation(session.recent, options.alternation);
    if (alternation) findings.push(alternation);
  }
  if (step.calls.length > 0) breakMonologue(session.monologue);
  else if (options.monologue) {
    const monologue = observeMonologue(session.monologue, step, stepNumber, options.monologue);
    if (monologue) findings.push(monologue);
  }
  if (options.repeatedText && step.text !== '') {
    const repeated = findRepeatedText(step.text, stepNumber, options.repeatedText);
    if (repeated) findings.push(repeated);
  }
  return { findings, stepNumber };
}

/** The checks a newly answered call can complete. */
function resultFindings(session: LoopSession, options: StructuralOptions): LoopFinding[] {
  const error = options.repeatedError && findRepeatedError(session.calls, options.repeatedError);
  return error ? [error] : [];
}

/**
 * The checks a new call completes. `repeated-action` is judged when the call is made, never again when its result
 * arrives, so one repetition is one detection.
 */
function callFindings(session: LoopSession, options: StructuralOptions): LoopFinding[] {
  const findings: LoopFinding[] = [];
  const action = options.repeatedAction && findRepeatedAction(session.calls, options.repeatedAction);
  if (action) findings.push(action);
  const warning = options.repeatedActionWarning && findRepeatedAction(session.calls, options.repeatedActionWarning, true);
  if (warning) findings.push(warning);
  return findings;
}
