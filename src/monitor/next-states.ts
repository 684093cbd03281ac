import type { ClassificationMethod, TransitionDefinition, Workflow, WorkflowSnapshot } from '../workflow/index.js';
import { InvalidOptionError } from '../errors/index.js';
import { groundedArgumentNames, previewEnter } from '../workflow/index.js';

/**
 * The classification a move is judged with: transition guards read it. A guard that needs a confidence or metadata
 * the move would not have fails, and says so.
 */
export interface NextStateInput {
  /** @default 1 */
  confidence?: number;
  /** @default 'tool_call' */
  method?: ClassificationMethod;
  /** @default {} */
  metadata?: Record<string, unknown>;
  /**
   * A candidate tool call's arguments: `grounded` constraints judge each move with them, as the call's check would.
   * Without them, a grounded constraint counts the user's latest yes whatever message it answered, and the move
   * lists the arguments the call will be checked for (`groundedArgs`).
   */
  args?: Record<string, unknown>;
}

/** One move out of the session's current state, and whether it may be made now. */
export interface NextMove {
  to: string;
  /** A transition lists the move and its guard passes (or nothing is listed out of the state: any move is allowed). */
  allowed: boolean;
  /** Allowed and breaks no constraint. */
  valid: boolean;
  /** Why it is not valid: each failing guard part, each constraint it would break. Empty when valid. */
  reasons: string[];
  /** The constraints the move would break, with their severity: a `critical` one refuses it before it happens. */
  violations: Array<{ constraint: string; severity: string; message: string }>;
  /** The deviation policy or a critical constraint refuses the move before it happens (a tool call is denied). */
  refused: boolean;
  /**
   * Judged without `args`, a move into the trigger of a `grounded` constraint: the arguments of the call that the
   * message the user's yes answered must state. The call's own check reads them, so a move valid here is refused for
   * a call whose yes answered a message without them.
   */
  groundedArgs?: string[];
}

/** What `monitor.validNextStates` answers. */
export interface NextStates {
  sessionId: string;
  /** With several workflows (`createMonitor({ workflows })`): the id of the session's workflow. */
  workflowId?: string;
  /** The state the session is in, the tool calls of its last response taken as run (as the next model call takes them). */
  state: string;
  status: WorkflowSnapshot['status'];
  /** The states the session can move to now without a deviation or a violation, best first (transition priority). */
  valid: string[];
  /** Every move the workflow lists out of `state` (every other state when it lists none), valid or not. */
  moves: NextMove[];
}

/**
 * The moves out of the snapshot's state and whether each may be made now: its transition's guard judged with
 * `input`, every constraint previewed as a tool call's check would (`previewEnter`).
 */
export function nextStatesOf(workflow: Workflow, sessionId: string, snapshot: WorkflowSnapshot, input: NextStateInput = {}): NextStates {
  assertInput(input);
  const { state, status } = snapshot;
  if (status !== 'active') return { sessionId, state, status, valid: [], moves: [] };
  const guardInput = { confidence: input.confidence ?? 1, method: input.method ?? 'tool_call', metadata: input.metadata ?? {} };
  const toolCall = guardInput.method === 'tool_call';
  // Without a candidate call's arguments, a grounded yes is judged on whether there is one; the call's check reads them.
  const callInput = input.args === undefined ? { ...guardInput, argsUnknown: true } : { ...guardInput, args: input.args };
  const listed = workflow.transitionsFrom(state);
  const targets = listed.length > 0 ? [...new Set(listed.map((transition) => transition.to))] : workflow.successors(state).filter((name) => name !== state);
  const moves: NextMove[] = [];
  for (const to of targets) {
    if (!workflow.hasState(to)) continue; // a target accepted with `strict: false` that is no state
    const preview = previewEnter(workflow, snapshot, to, callInput);
    const reasons: string[] = [];
    if (!preview.allowed) reasons.push(...guardReasons(workflow, listed.filter((transition) => transition.to === to), guardInput));
    for (const violation of preview.violations) reasons.push(`breaks ${violation.severity} constraint '${violation.constraint}': ${violation.message}`);
    const violations = preview.violations.map(({ constraint, severity, message }) => ({ constraint, severity, message }));
    const move: NextMove = { to, allowed: preview.allowed, valid: preview.allowed && violations.length === 0, reasons, violations, refused: preview.refuse };
    const grounded = toolCall && input.args === undefined ? groundedArgumentNames(workflow.definition, to) : undefined;
    if (grounded) move.groundedArgs = [...grounded];
    moves.push(move);
  }
  return { sessionId, state, status, valid: moves.filter((move) => move.valid).map((move) => move.to), moves };
}

/** Why each transition to the target fails its guard, part by part (a target may be listed more than once). */
function guardReasons(workflow: Workflow, transitions: readonly TransitionDefinition[], input: { confidence: number; method: string; metadata: Record<string, unknown> }): string[] {
  const reasons: string[] = [];
  for (const transition of transitions) {
    const { guard } = transition;
    if (!guard) continue;
    const { minConfidence, requiredMetadata, expression } = guard;
    if (minConfidence !== undefined && !(input.confidence >= minConfidence)) reasons.push(`guard: confidence ${input.confidence} is below min_confidence ${minConfidence}`);
    const missing = (requiredMetadata ?? []).filter((key) => !Object.hasOwn(input.metadata, key) || input.metadata[key] === undefined);
    if (missing.length > 0) reasons.push(`guard: metadata lacks ${missing.map((key) => `'${key}'`).join(', ')} (required_metadata)`);
    if (expression !== undefined && !workflow.checkGuard({ ...transition, guard: { expression } }, input)) reasons.push(`guard: expression ${JSON.stringify(expression)} is false`);
  }
  return reasons.length > 0 ? reasons : ['no transition of the workflow lists this move'];
}

/** The classification a caller describes must be one a guard can read. @throws {InvalidOptionError} naming the field. */
function assertInput(input: NextStateInput): void {
  if (typeof input !== 'object' || input === null) throw new InvalidOptionError({ parameter: 'input', value: input, fix: 'Pass { confidence?, method?, metadata?, args? }, or nothing.' });
  const { confidence, metadata, method } = input;
  if (confidence !== undefined && !(typeof confidence === 'number' && confidence >= 0 && confidence <= 1)) {
    throw new InvalidOptionError({ parameter: 'confidence', value: confidence, fix: 'Pass a number from 0 to 1, the confidence of the classification the move would come from; the default is 1.' });
  }
  if (method !== undefined && typeof method !== 'string') throw new InvalidOptionError({ parameter: 'method', value: method, fix: "Pass a classification method such as 'tool_call' or 'pattern'; the default is 'tool_call'." });
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
    throw new InvalidOptionError({ parameter: 'metadata', value: metadata, fix: 'Pass an object of the step metadata guards read, e.g. { order_id: "A1" }.' });
  }
  const { args } = input;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new InvalidOptionError({ parameter: 'args', value: args, fix: 'Pass the arguments of the tool call the move would come from as an object, e.g. { order_id: "A1" }, or leave them out.' });
  }
}
