import { initialInterventionState, planInterventions, scheduleIntervention, type InterventionPlan, type PendingIntervention } from '../intervene/index.js';
import { PanoptesError } from '../errors/index.js';
import {
  closeMonitor,
  describeDoomed,
  describeViolation,
  ignoreTargetsAfter,
  initialMonitorState,
  isDoomed,
  stepMonitor,
  wouldViolate,
  type CompiledConstraint,
  type MonitorState,
  type Verdict,
} from '../temporal/index.js';
import { compiledConstraints } from './constraints.js';
import { groundedNote, unstatedForCall, unstatedNote, withAnswered, withoutFreshTarget } from './grounded.js';
import { seenGraphs } from './seen-graph.js';
import { anchorOf, constraintNames, hasEachConstraints, isTransparentState, lastSeenBy, monitorSees } from './transparent.js';
import type { ClassificationMethod, DeviationRecord, RefusalRecord, ViolationRecord, WorkflowSnapshot } from './snapshot.js';
import type { ConstraintDefinition } from './types.js';
import { deepFreeze, type Workflow } from './workflow.js';

/**
 * Trace states (and deviations, refusals) a snapshot keeps by default. Older ones are dropped (the monitors have already
 * seen them, and `traceLength` keeps counting), so a step and a stored session cost the same however long the
 * session runs. Callers that need every state (an audit) pass `historyLimit: Infinity` or collect the effects.
 */
export const DEFAULT_HISTORY_LIMIT = 100;

/** Something that happened to a session, with the time it happened (from the caller's clock). */
export type WorkflowEvent =
  | {
      /** The agent entered `state` (a classified model response, a tool call that ran). */
      type: 'enter';
      state: string;
      at: number;
      /** @default 1 */
      confidence?: number;
      /** @default 'tool_call' */
      method?: ClassificationMethod;
      /** Read by transition guards' `required_metadata` and `expression`. */
      metadata?: Record<string, unknown>;
      /** The caller's step number, copied into deviation and violation records. */
      step?: number;
      /** A tool call's arguments, read by `grounded` constraints whose trigger `state` is. */
      args?: Readonly<Record<string, unknown>>;
      /**
       * A state recognised in the user's turn: the agent's messages the user answered (since the user's message before),
       * kept for `grounded` constraints whose target `state` is.
       */
      answered?: string;
    }
  | {
      /** An attempt to enter `state` was refused before it happened; it does not enter the trace. */
      type: 'refuse';
      state: string;
      at: number;
      reason: string;
      constraints: string[];
      /** Who refused: the workflow (default) or a tool guard, whose own text already tells the model what is missing. */
      by?: RefusalRecord['by'];
      /**
       * Refused only because the target it needs was called in the same response (its result unseen): the refusal's
       * own text says to call again, and no intervention is scheduled, since the constraint's guidance ("verify
       * first") would tell the model to do what it already did.
       */
      unseen?: true;
      step?: number;
    }
  | {
      /**
       * A response classified as `state` was withheld before delivery (it would have broken a constraint that
       * withholds; see `previewWithhold`): the violations it would have made are recorded, marked `withheld`, with
       * their guidance for the next call, which never blocks by itself. The trace and the monitors are unchanged.
       */
      type: 'withhold';
      state: string;
      at: number;
      step?: number;
    }
  | { /** The session ended: pending constraints get their final verdict. */ type: 'close'; at: number };

/** What the caller must do or report after a transition. Data only: `transition()` runs nothing. */
export type WorkflowEffect =
  | { type: 'state-entered'; from: string; to: string; at: number; position: number }
  | { type: 'deviation-recorded'; deviation: DeviationRecord }
  | { type: 'constraint-violated'; violation: ViolationRecord }
  | { type: 'constraint-doomed'; constraint: string; message: string }
  | { type: 'intervention-scheduled'; intervention: PendingIntervention }
  | { type: 'call-refused'; refusal: RefusalRecord }
  /**
   * A registered constraint type's evaluator threw (or returned no verdict): the constraint stays `pending` for this
   * session and is stepped no more. The monitor counts it and logs it once.
   */
  | { type: 'constraint-failed'; constraint: string; reason: string }
  | { type: 'session-closed'; verdicts: Record<string, Verdict> };

export interface TransitionResult {
  snapshot: WorkflowSnapshot;
  effects: WorkflowEffect[];
}

/**
 * The snapshot of a new session: in the initial state, every constraint monitor having seen it.
 * @param at the session's start time, from the caller's clock.
 */
export function createSnapshot(workflow: Workflow, { at, historyLimit = DEFAULT_HISTORY_LIMIT }: { at: number; historyLimit?: number }): WorkflowSnapshot {
  // Every new session of a workflow starts alike but for its times: the first is worked out, the others copy it.
  const initial = initialSnapshot(workflow, historyLimit);
  return {
    status: initial.status,
    workflow: initial.workflow,
    state: initial.state,
    trace: initial.trace,
    traceLength: initial.traceLength,
    historyLimit,
    monitors: initial.monitors,
    doomed: initial.doomed,
    violations: initial.violations.length === 0 ? initial.violations : initial.violations.map((violation) => ({ ...violation, at })),
    deviations: initial.deviations,
    refusals: initial.refusals,
    interventions: initial.interventions,
    startedAt: at,
    updatedAt: at,
  };
}

const initialSnapshots = new WeakMap<Workflow, Map<number, WorkflowSnapshot>>();

/**
 * A new session's snapshot at time 0, worked out once per workflow and history limit. Frozen: new sessions share its
 * parts (a snapshot is never mutated in place), so a write to one would reach them all and throws instead.
 */
function initialSnapshot(workflow: Workflow, historyLimit: number): WorkflowSnapshot {
  let byLimit = initialSnapshots.get(workflow);
  if (!byLimit) initialSnapshots.set(workflow, (byLimit = new Map()));
  let initial = byLimit.get(historyLimit);
  if (!initial) byLimit.set(historyLimit, (initial = deepFreeze(startSnapshot(workflow, { at: 0, historyLimit }))));
  return initial;
}

function startSnapshot(workflow: Workflow, { at, historyLimit }: { at: number; historyLimit: number }): WorkflowSnapshot {
  const state = workflow.initialState;
  const empty: WorkflowSnapshot = {
    status: 'active',
    workflow: workflow.name,
    state,
    trace: [],
    traceLength: 0,
    historyLimit,
    monitors: Object.fromEntries(compiledConstraints(workflow).map((compiled) => [compiled.constraint.name, initialMonitorState(compiled)])),
    doomed: [],
    violations: [],
    deviations: [],
    refusals: [],
    interventions: initialInterventionState(),
    startedAt: at,
    updatedAt: at,
  };
  return enter(workflow, empty, { type: 'enter', state, at, confidence: 1, method: 'initial' }, true).snapshot;
}

/**
 * Computes the next snapshot and the effects the caller must run: `{ snapshot, effects }`.
 * Pure: reads no clock (the event carries `at`), performs no I/O, never mutates `snapshot`. Each step costs the same
 * whatever the session's length: the constraint monitors are incremental and the kept trace is bounded.
 * @throws {PanoptesError} `INVALID_INPUT` when the event names a state the workflow does not have.
 */
export function transition(workflow: Workflow, snapshot: WorkflowSnapshot, event: WorkflowEvent): TransitionResult {
  if (snapshot.status !== 'active') return { snapshot, effects: [] };
  switch (event.type) {
    case 'enter':
      assertKnownState(workflow, event.state);
      // Staying adds nothing to the trace; a repeated tool call is another occurrence for constraints with `each`.
      if (event.state === snapshot.state && !((event.method ?? 'tool_call') === 'tool_call' && hasEachConstraints(workflow))) {
        // Another yes in a row: nothing enters the trace, but it is the latest yes, so what it answered is kept.
        return { snapshot: event.answered === undefined ? snapshot : withAnswered(snapshot, event.state, event.answered), effects: [] };
      }
      return enter(workflow, snapshot, event, false);
    case 'refuse':
      assertKnownState(workflow, event.state);
      return refuse(workflow, snapshot, event);
    case 'withhold':
      assertKnownState(workflow, event.state);
      return withhold(workflow, snapshot, event);
    case 'close':
      return close(workflow, snapshot, event.at);
  }
}

/** What entering `state` now would do, without doing it: the constraints it would violate and whether to refuse it. */
export interface EnterPreview {
  /** Whether the workflow's transitions allow the move. */
  allowed: boolean;
  violations: Array<{
    constraint: string;
    severity: ConstraintDefinition['severity'];
    message: string;
    /**
     * True when the move breaks the constraint only because a target entered after `seenLength` does not count for it
     * (see `previewEnter`); entering it would not record a violation, so only a critical one is listed, to refuse.
     */
    unseen?: true;
    /** A `grounded` constraint: the call's named arguments the message the user's yes answered did not state. */
    unstated?: string[];
  }>;
  /** True when the move must be refused: it would violate a critical constraint, or deviate under a `block` policy. */
  refuse: boolean;
}

/** What `previewEnter` knows of the move besides its state. */
export interface EnterPreviewContext {
  confidence?: number;
  method?: ClassificationMethod;
  metadata?: Record<string, unknown>;
  /**
   * The trace length when the move was decided: the positions after it were not seen by whoever decided it (a model
   * response's tool calls are all decided before any of them runs). A `precedence` or `until` target entered there
   * does not let the move through: a critical one that would be violated without it refuses the move. Absent: every
   * position was seen.
   */
  seenLength?: number;
  /** The tool call's arguments, read by `grounded` constraints. */
  args?: Readonly<Record<string, unknown>>;
  /**
   * The move is previewed before any call proposes it, so its arguments are not known: a `grounded` constraint counts
   * the user's latest yes whatever message it answered (the call's own check reads the arguments), and its violation
   * says which arguments the yes must have been shown. `args` is then not read.
   */
  argsUnknown?: boolean;
}

/**
 * Pre-emptive check: evaluates a proposed next state against every constraint without committing it, so a tool call
 * can be refused before it runs. With `seenLength`, a critical `precedence` or `until` that only a
 * target entered after it satisfied is checked as if that target had not come (`ignoreTargetsAfter`).
 */
export function previewEnter(workflow: Workflow, snapshot: WorkflowSnapshot, state: string, context: EnterPreviewContext = {}): EnterPreview {
  assertKnownState(workflow, state);
  const toolCall = (context.method ?? 'tool_call') === 'tool_call';
  if (snapshot.status !== 'active' || (state === snapshot.state && !(toolCall && hasEachConstraints(workflow)))) return { allowed: true, violations: [], refuse: false };
  const allowed = isJudgedMoveAllowed(workflow, snapshot, state, context);
  const violations: EnterPreview['violations'] = [];
  const { seenLength } = context;
  for (const compiled of compiledConstraints(workflow)) {
    const definition = compiled.constraint as ConstraintDefinition;
    if (!monitorSees(workflow, snapshot, compiled, state, toolCall)) continue;
    const before = snapshot.monitors[definition.name]!;
    const unstated = toolCall && !context.argsUnknown ? unstatedForCall(snapshot, compiled, before, state, context.args) : undefined;
    const after = stepMonitor(compiled, unstated?.length ? withoutFreshTarget(before) : before, state);
    if (before.verdict === 'pending' && after.verdict === 'violated') {
      const grounded = toolCall && context.argsUnknown ? groundedNote(definition) : undefined;
      const note = unstated?.length ? ` ${unstatedNote(unstated, before.open!.state)}` : grounded ? ` ${grounded}` : '';
      violations.push({ constraint: definition.name, severity: definition.severity, message: `${describeViolation(compiled, after)}${note}`, ...(unstated?.length ? { unstated } : {}) });
      continue;
    }
    if (seenLength === undefined || definition.severity !== 'critical') continue;
    const unseen = ignoreTargetsAfter(compiled, before, seenLength, snapshot.traceLength);
    if (unseen === before || !wouldViolate(compiled, unseen, state)) continue;
    const message = `${describeViolation(compiled, stepMonitor(compiled, unseen, state))} ${UNSEEN_TARGET}`;
    violations.push({ constraint: definition.name, severity: definition.severity, message, unseen: true });
  }
  const refuse = violations.some((violation) => violation.severity === 'critical') || (!allowed && workflow.definition.onDeviation.reaction === 'block');
  return { allowed, violations, refuse };
}

/** Why a target in the trace did not count for a move previewed with `seenLength`. */
const UNSEEN_TARGET = 'Its target was reached only after this move was decided (by another tool call of the same model response), so it does not count for this move.';

/**
 * Takes the interventions due on the next model call: renders them, counts them, escalates repeated ones.
 * Returns the snapshot with the queue emptied; the plan says what to apply to the request or whether to block it.
 */
export function takeInterventions(workflow: Workflow, snapshot: WorkflowSnapshot): { snapshot: WorkflowSnapshot; plan: InterventionPlan } {
  const plan = planInterventions(snapshot.interventions, (name) => workflow.intervention(name));
  return { snapshot: plan.state === snapshot.interventions ? snapshot : { ...snapshot, interventions: plan.state }, plan };
}

/** The current verdict of every constraint, by name. */
export function verdictsOf(snapshot: WorkflowSnapshot): Record<string, Verdict> {
  return Object.fromEntries(Object.entries(snapshot.monitors).map(([name, monitor]) => [name, monitor.verdict]));
}

function enter(workflow: Workflow, snapshot: WorkflowSnapshot, event: Extract<WorkflowEvent, { type: 'enter' }>, initial: boolean): TransitionResult {
  const from = snapshot.state;
  const to = event.state;
  // A tool call repeating the current state: no new trace position, another occurrence for constraints with `each`.
  const repeat = !initial && to === from;
  const position = repeat ? snapshot.traceLength : snapshot.traceLength + 1;
  const effects: WorkflowEffect[] = [];
  const confidence = event.confidence ?? 1;
  const method = event.method ?? 'tool_call';
  const allowed = initial || repeat || isJudgedMoveAllowed(workflow, snapshot, to, { confidence, method, metadata: event.metadata });
  if (!initial && !repeat) effects.push({ type: 'state-entered', from, to, at: event.at, position });

  let interventions = snapshot.interventions;
  let variables: PendingIntervention['variables'] | undefined; // rendered only when something is scheduled
  const variablesOfMove = () => (variables ??= templateVariablesFor(workflow, from, to));
  const schedule = (pending: PendingIntervention) => {
    interventions = scheduleIntervention(interventions, pending);
    effects.push({ type: 'intervention-scheduled', intervention: pending });
  };

  let deviations = snapshot.deviations;
  if (!allowed) {
    // Records are written out in full rather than spread: a spread in the middle of a literal costs microseconds on
    // every state entered (measured in a profile of an agent's run), a plain literal almost nothing.
    const deviation: DeviationRecord = { from, to, position, at: event.at };
    if (event.step !== undefined) deviation.step = event.step;
    deviations = appendBounded(deviations, deviation, snapshot.historyLimit);
    effects.push({ type: 'deviation-recorded', deviation });
    const policy = workflow.definition.onDeviation;
    if (policy.reaction !== 'record') {
      schedule({ name: policy.intervention ?? 'deviation', reason: 'deviation', block: policy.reaction === 'block', variables: variablesOfMove() });
    }
  }

  const where: Pick<ViolationRecord, 'position' | 'state' | 'at' | 'step'> = { position, state: to, at: event.at };
  if (event.step !== undefined) where.step = event.step;
  const toolCall = method === 'tool_call';
  // A grounded constraint's trigger whose yes answered a message that left out some of the call's arguments.
  let notes: Map<string, string> | undefined;
  const step = (compiled: CompiledConstraint, monitor: MonitorState): MonitorState => {
    const unstated = toolCall ? unstatedForCall(snapshot, compiled, monitor, to, event.args) : undefined;
    if (!unstated?.length) return stepMonitor(compiled, monitor, to);
    (notes ??= new Map()).set(compiled.constraint.name, unstatedNote(unstated, monitor.open!.state));
    return stepMonitor(compiled, withoutFreshTarget(monitor), to);
  };
  const stepped = advanceMonitors(workflow, snapshot, (compiled, monitor) => (initial || monitorSees(workflow, snapshot, compiled, to, toolCall) ? step(compiled, monitor) : monitor), where, (name) => notes?.get(name));
  const { monitors } = stepped;
  effects.push(...stepped.failed);
  for (const { constraint, violation } of stepped.violated) {
    effects.push({ type: 'constraint-violated', violation });
    const pending = violationIntervention(constraint, { ...variablesOfMove(), details: violation.message });
    if (pending) schedule(pending);
  }

  const doomed: string[] = [];
  const intoTransparent = !initial && isTransparentState(workflow, to);
  const constraints = compiledConstraints(workflow);
  const graphs = seenGraphs(workflow);
  for (let index = 0; index < constraints.length; index++) {
    const compiled = constraints[index]!;
    const name = compiled.constraint.name;
    // Predicted from the last state the monitor saw, over the moves it would see: a lookup in between changes nothing.
    const from = intoTransparent && !constraintNames(compiled, to) ? lastSeenBy(workflow, snapshot, compiled) : to;
    if (!isDoomed(compiled, monitors[name]!, from, graphs[index]!)) continue;
    doomed.push(name);
    if (snapshot.doomed.includes(name)) continue;
    const message = describeDoomed(compiled, to);
    effects.push({ type: 'constraint-doomed', constraint: name, message });
    schedule({ name: `doomed:${name}`, reason: 'doomed', constraint: name, block: false, variables: { ...variablesOfMove(), constraint: name, details: message } });
  }

  const next: WorkflowSnapshot = {
      // Every field listed, in the interface's order (no spread): each entry costs a plain allocation.
      status: snapshot.status,
      workflow: snapshot.workflow,
      state: to,
      trace: repeat ? snapshot.trace : appendBounded(snapshot.trace, to, snapshot.historyLimit),
      traceLength: position,
      historyLimit: snapshot.historyLimit,
      monitors,
      doomed: doomed.length === 0 && snapshot.doomed.length === 0 ? snapshot.doomed : doomed,
      violations: stepped.violations,
      deviations,
      refusals: snapshot.refusals,
      interventions,
      startedAt: snapshot.startedAt,
      updatedAt: event.at,
  };
  // In a transparent state the next move is judged from the last state before it.
  if (!initial && isTransparentState(workflow, to)) next.anchor = anchorOf(snapshot);
  if (snapshot.answered !== undefined) next.answered = snapshot.answered;
  return { snapshot: event.answered === undefined ? next : withAnswered(next, to, event.answered), effects };
}

/**
 * A refused attempt leaves the trace and the monitors alone (the action did not happen). A workflow refusal schedules
 * guidance for the next call: the intervention of each constraint it would have violated, or the deviation guidance
 * when the deviation policy refused it; never a block by itself, and repeated refusals escalate like any
 * intervention. A guard refusal schedules nothing: the guard's text in the tool result already says what is missing.
 */
function refuse(workflow: Workflow, snapshot: WorkflowSnapshot, event: Extract<WorkflowEvent, { type: 'refuse' }>): TransitionResult {
  const by = event.by ?? 'workflow';
  const refusal: RefusalRecord = { state: event.state, by, constraints: event.constraints, reason: event.reason, at: event.at, ...stepOf(event) };
  const effects: WorkflowEffect[] = [{ type: 'call-refused', refusal }];
  if (by === 'guard' || event.unseen) {
    return { snapshot: { ...snapshot, refusals: appendBounded(snapshot.refusals, refusal, snapshot.historyLimit), updatedAt: event.at }, effects };
  }
  const variables = { ...templateVariablesFor(workflow, snapshot.state, event.state, snapshot.state), details: event.reason };
  const guidance: PendingIntervention[] =
    event.constraints.length === 0
      ? [{ name: workflow.definition.onDeviation.intervention ?? 'deviation', reason: 'deviation', block: false, variables }]
      : event.constraints.map((name) => {
          const constraint = workflow.definition.constraints.find((candidate) => candidate.name === name);
          const severity = constraint?.severity;
          return {
            name: constraint?.intervention ?? `constraint:${name}`,
            reason: 'refusal',
            constraint: name,
            ...(severity ? { severity } : {}),
            block: false,
            variables: { ...variables, constraint: name, ...(severity ? { severity } : {}) },
          };
        });
  let interventions = snapshot.interventions;
  for (const pending of guidance) {
    interventions = scheduleIntervention(interventions, pending);
    effects.push({ type: 'intervention-scheduled', intervention: pending });
  }
  return {
    snapshot: { ...snapshot, refusals: appendBounded(snapshot.refusals, refusal, snapshot.historyLimit), interventions, updatedAt: event.at },
    effects,
  };
}

/**
 * A withheld response did not happen for the user: like a refused call it leaves the trace and the monitors alone,
 * so the constraint keeps its verdict and still guards the next response. Each violation the move would have made
 * is recorded (`withheld`) and schedules its guidance for the next call as a violation does, never as a block.
 */
function withhold(workflow: Workflow, snapshot: WorkflowSnapshot, event: Extract<WorkflowEvent, { type: 'withhold' }>): TransitionResult {
  const effects: WorkflowEffect[] = [];
  const variables = { ...templateVariablesFor(workflow, snapshot.state, event.state, snapshot.state) };
  let { violations, interventions } = snapshot;
  for (const found of previewEnter(workflow, snapshot, event.state).violations) {
    const constraint = workflow.definition.constraints.find((candidate) => candidate.name === found.constraint)!;
    const violation: ViolationRecord = { constraint: constraint.name, type: constraint.type, severity: constraint.severity, position: snapshot.traceLength + 1, state: event.state, at: event.at, ...stepOf(event), message: found.message, withheld: true };
    violations = appendBounded(violations, violation, snapshot.historyLimit);
    effects.push({ type: 'constraint-violated', violation });
    const pending = violationIntervention(constraint, { ...variables, details: found.message });
    if (!pending) continue;
    const guidance: PendingIntervention = { ...pending, block: false, withheld: true };
    interventions = scheduleIntervention(interventions, guidance);
    effects.push({ type: 'intervention-scheduled', intervention: guidance });
  }
  return { snapshot: { ...snapshot, violations, interventions, updatedAt: event.at }, effects };
}

function close(workflow: Workflow, snapshot: WorkflowSnapshot, at: number): TransitionResult {
  const closed = advanceMonitors(workflow, snapshot, closeMonitor, { position: snapshot.traceLength, at });
  const effects: WorkflowEffect[] = [...closed.failed, ...closed.violated.map(({ violation }): WorkflowEffect => ({ type: 'constraint-violated', violation }))];
  const next: WorkflowSnapshot = { ...snapshot, status: 'closed', monitors: closed.monitors, doomed: [], violations: closed.violations, updatedAt: at };
  effects.push({ type: 'session-closed', verdicts: verdictsOf(next) });
  return { snapshot: next, effects };
}

/**
 * Advances every constraint monitor by one step (or closes it) and records the constraints that turned violated
 * just now. Each constraint is violated at most once, so the violation list stays as short as the constraint list.
 */
function advanceMonitors(
  workflow: Workflow,
  snapshot: WorkflowSnapshot,
  advance: (compiled: CompiledConstraint, monitor: MonitorState) => MonitorState,
  where: Pick<ViolationRecord, 'position' | 'state' | 'at' | 'step'>,
  note: (constraint: string) => string | undefined = () => undefined,
) {
  // Copied once something changes (a decided monitor steps to itself), then only the changed entries written: the
  // copy keeps the object's shape, where building it key by key costs a dictionary store per constraint.
  let monitors = snapshot.monitors;
  let violations = snapshot.violations; // copied only when a constraint turns violated
  const violated: Array<{ constraint: ConstraintDefinition; violation: ViolationRecord }> = [];
  const failed: Array<Extract<WorkflowEffect, { type: 'constraint-failed' }>> = [];
  for (const compiled of compiledConstraints(workflow)) {
    const constraint = compiled.constraint as ConstraintDefinition;
    const before = snapshot.monitors[constraint.name]!;
    const after = advance(compiled, before);
    if (after === before) continue;
    if (monitors === snapshot.monitors) monitors = { ...snapshot.monitors };
    monitors[constraint.name] = after;
    if (after.failed !== undefined && before.failed === undefined) failed.push({ type: 'constraint-failed', constraint: constraint.name, reason: after.failed });
    if (before.verdict !== 'pending' || after.verdict !== 'violated') continue;
    const { name, type, severity } = constraint;
    const extra = note(name);
    const violation: ViolationRecord = { constraint: name, type, severity, ...where, message: extra === undefined ? describeViolation(compiled, after) : `${describeViolation(compiled, after)} ${extra}` };
    violations = [...violations, violation];
    violated.push({ constraint, violation });
  }
  return { monitors, violations, violated, failed };
}

/**
 * Critical constraints block the next call; others apply their intervention, or built-in guidance for `error`
 * severity. A `warning` with no intervention is only recorded.
 */
function violationIntervention(constraint: ConstraintDefinition, variables: PendingIntervention['variables']): PendingIntervention | undefined {
  const block = constraint.severity === 'critical';
  if (!constraint.intervention && constraint.severity === 'warning') return undefined;
  return {
    name: constraint.intervention ?? `constraint:${constraint.name}`,
    reason: 'violation',
    constraint: constraint.name,
    severity: constraint.severity,
    block,
    variables: { ...variables, constraint: constraint.name, severity: constraint.severity },
  };
}

/**
 * Whether a move is one the workflow allows, judged from the last state that is not transparent: a lookup between a
 * confirmation and a write leaves the write judged from the confirmation (a return to that state is staying), and a
 * lookup after a transfer is judged from the transfer.
 */
function isJudgedMoveAllowed(workflow: Workflow, snapshot: WorkflowSnapshot, to: string, context: { confidence?: number; method?: ClassificationMethod; metadata?: Record<string, unknown> | undefined }): boolean {
  const from = anchorOf(snapshot);
  return to === from || isMoveAllowed(workflow, from, to, context);
}

function isMoveAllowed(
  workflow: Workflow,
  from: string,
  to: string,
  context: { confidence?: number; method?: ClassificationMethod; metadata?: Record<string, unknown> },
): boolean {
  const listed = workflow.transitionsFrom(from);
  if (listed.length === 0) return workflow.isAllowed(from, to); // nothing listed: any state, or none after a terminal one
  // A plain loop, the guard's input built only for a listed move: this runs on every state entered.
  for (const candidate of listed) {
    if (candidate.to === to && workflow.checkGuard(candidate, { confidence: context.confidence ?? 1, method: context.method ?? 'tool_call', metadata: context.metadata ?? {} })) return true;
  }
  return false;
}

/** Template variables for a move `from -> to`; `current` is where the session is afterwards (`to`, unless refused). */
function templateVariablesFor(workflow: Workflow, from: string, to: string, current = to): PendingIntervention['variables'] {
  return {
    workflow: workflow.name,
    previous_state: from,
    attempted_state: to,
    current_state: current,
    valid_next_states: workflow.successors(current).join(', ') || '(none: the workflow ends here)',
  };
}

function appendBounded<T>(items: readonly T[], item: T, limit: number): T[] {
  const start = Math.max(0, items.length + 1 - limit);
  const kept = new Array<T>(items.length - start + 1);
  for (let i = start; i < items.length; i++) kept[i - start] = items[i]!;
  kept[kept.length - 1] = item;
  return kept;
}

function stepOf(event: { step?: number }): { step?: number } {
  return event.step === undefined ? {} : { step: event.step };
}

function assertKnownState(workflow: Workflow, state: string): void {
  if (!workflow.hasState(state)) {
    throw new PanoptesError('INVALID_INPUT', `Unknown state '${state}' for workflow '${workflow.name}'; known states: ${workflow.stateNames.join(', ')}.`);
  }
}
