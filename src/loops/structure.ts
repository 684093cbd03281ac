import { findAlternation } from './alternation.js';
import { attachResults, callRecord, type CallRecord } from './call-history.js';
import { findCondensation, madeProgress } from './condensation.js';
import { breakMonologue, observeMonologue } from './monologue.js';
import type { ResolvedLoopOptions } from './options.js';
import type { PreparedStep } from './prepare-step.js';
import { findRepeatedAction } from './repeated-action.js';
import { findRepeatedError } from './repeated-error.js';
import { findRepeatedLine } from './repeated-line.js';
import { findRepeatedText } from './repeated-text.js';
import { startUserTurn, type LoopSession } from './session.js';
import { findToolCycle } from './tool-cycle.js';
import type { LoopFinding, LoopStep } from './types.js';
import { findUnchangedResult } from './unchanged-result.js';
import { findUnknownTool } from './unknown-tool.js';

/** What the structural checks need from the options. @internal */
export type StructuralOptions = Pick<
  ResolvedLoopOptions,
  | 'repeatedAction'
  | 'repeatedActionWarning'
  | 'repeatedError'
  | 'monologue'
  | 'alternation'
  | 'toolCycle'
  | 'repeatedText'
  | 'repeatedLine'
  | 'unknownTool'
  | 'unchangedResult'
  | 'condensation'
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
    breakMonologue(session.monologue); // an observation between two messages: not a monologue (as OpenHands)
    const answered = attachResults(session.calls, session.awaiting, step.results);
    return { findings: answered ? resultFindings(session, answered, options) : [], stepNumber: answered?.step ?? session.steps };
  }
  const stepNumber = ++session.steps;
  if (step.kind === 'exempt') {
    breakMonologue(session.monologue); // a poll is something in between
    // Its own results pair with nothing (exempt calls are not recorded); results of earlier calls still count.
    const answered = step.results.length > 0 ? attachResults(session.calls, session.awaiting, step.results) : undefined;
    return { findings: answered ? resultFindings(session, answered, options) : [], stepNumber };
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
  const answered = step.results.length > 0 ? attachResults(session.calls, session.awaiting, step.results) : undefined;
  if (answered) findings.push(...resultFindings(session, answered, options));
  if (step.calls.length > 0) findings.push(...callFindings(session, options));
  if (cycle) findings.push(cycle);
  if (options.unknownTool && step.unknown.length > 0) {
    session.unknownCalls += step.unknown.length;
    const unknown = findUnknownTool(session.unknownCalls, step.unknown, step.available ?? [], stepNumber, options.unknownTool);
    if (unknown) findings.push(unknown);
  }
  if (options.repeatedLine) {
    const line = findRepeatedLine(step.text, step.reasoning, stepNumber, options.repeatedLine);
    if (line) findings.push(line);
  }
  // A step with only reasoning says nothing to the user and calls nothing: it neither alternates nor monologues.
  if (step.text === '' && step.calls.length === 0) return { findings, stepNumber };
  if (options.alternation) {
    session.recent.push({ key: step.key, step: stepNumber });
    const alternation = findAlternation(session.recent, options.alternation);
    if (alternation) findings.push(alternation);
  }
  if (step.calls.length > 0) breakMonologue(session.monologue);
  else if (options.monologue) {
    if (step.results.length > 0) breakMonologue(session.monologue); // results came in before this text
    const monologue = observeMonologue(session.monologue, step, stepNumber, options.monologue);
    if (monologue) findings.push(monologue);
  }
  if (options.repeatedText && step.text !== '') {
    const repeated = findRepeatedText(step.text, stepNumber, options.repeatedText);
    if (repeated) findings.push(repeated);
  }
  return { findings, stepNumber };
}

/** The checks a newly answered call can complete; a call that made progress ends a run of condensations. */
function resultFindings(session: LoopSession, answered: CallRecord, options: StructuralOptions): LoopFinding[] {
  if (madeProgress(session.calls, answered)) session.condensations = 0;
  const findings: LoopFinding[] = [];
  const error = options.repeatedError && findRepeatedError(session.calls, options.repeatedError);
  if (error) findings.push(error);
  const unchanged = options.unchangedResult && findUnchangedResult(session.calls, options.unchangedResult);
  if (unchanged) findings.push(unchanged);
  return findings;
}

/**
 * What a step says about its turn, before its content is checked: a new user turn starts the structural counts
 * afresh (with `scopeToUserTurn`), and a condensation counts towards `condensation`.
 * @internal
 */
export function observeTurnEvents(
  session: LoopSession,
  step: LoopStep | null | undefined,
  options: ResolvedLoopOptions,
): LoopFinding[] {
  if (typeof step !== 'object' || step === null) return [];
  if (step.userTurn === true && options.scopeToUserTurn) startUserTurn(session, options);
  if (step.condensed !== true || !options.condensation) return [];
  session.condensations++;
  const found = findCondensation(session.condensations, session.steps, options.condensation);
  return found ? [found] : [];
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
