import type { CompiledConstraint } from '../temporal/index.js';
import { normaliseToolName } from '../messages/index.js';
import { compiledConstraints } from './constraints.js';
import type { WorkflowSnapshot } from './snapshot.js';
import type { Workflow } from './workflow.js';

/**
 * Transparent states and `each` constraints: which steps a constraint monitor sees. A transparent state (a lookup, a
 * `think` call) is skipped by every constraint that does not name it; a constraint with `each: true` also sees a tool
 * call that repeats the state it is in, as a separate occurrence.
 */
interface Visibility {
  transparent: ReadonlySet<string>;
  transparentTools: ReadonlySet<string>;
  hasEach: boolean;
  userTurn: readonly string[];
}

const cache = new WeakMap<Workflow, Visibility>();

function visibility(workflow: Workflow): Visibility {
  let found = cache.get(workflow);
  if (!found) {
    found = {
      transparent: new Set(workflow.definition.states.filter((state) => state.transparent).map((state) => state.name)),
      transparentTools: new Set((workflow.definition.transparentTools ?? []).map(normaliseToolName)),
      hasEach: compiledConstraints(workflow).some((compiled) => compiled.constraint.each === true),
      userTurn: workflow.definition.states.filter((state) => state.classification.turn === 'user').map((state) => state.name),
    };
    cache.set(workflow, found);
  }
  return found;
}

/** Whether a state is marked `transparent`. */
export function isTransparentState(workflow: Workflow, state: string): boolean {
  return visibility(workflow).transparent.has(state);
}

/** Whether calls of a tool are no step at all (`transparent_tools`). */
export function isTransparentTool(workflow: Workflow, tool: string): boolean {
  const tools = visibility(workflow).transparentTools;
  return tools.size > 0 && tools.has(normaliseToolName(tool));
}

/** Whether some constraint has `each: true`, so a repeated tool-call step can matter. */
export function hasEachConstraints(workflow: Workflow): boolean {
  return visibility(workflow).hasEach;
}

/** Whether a state is recognised in the user's turn (`classification.turn: user`). */
export function isUserTurnState(workflow: Workflow, state: string): boolean {
  return visibility(workflow).userTurn.includes(state);
}

/** Whether the workflow recognises some state in the user's turn, so the monitor reads the user's messages. */
export function hasUserTurnStates(workflow: Workflow): boolean {
  return visibility(workflow).userTurn.length > 0;
}

// The user's message is bounded like an assistant's: a huge paste costs no more than this.
const MAX_USER_TEXT = 8_000;

/** The first state recognised in the user's turn whose pattern matches the user's message, if any. */
export function classifyUserTurn(workflow: Workflow, text: string): { state: string; pattern: string } | undefined {
  const bounded = text.length > MAX_USER_TEXT ? text.slice(0, MAX_USER_TEXT) : text;
  for (const state of visibility(workflow).userTurn) {
    for (const pattern of workflow.patterns(state)) if (pattern.test(bounded)) return { state, pattern: pattern.source };
  }
  return undefined;
}

/** The state the next move is judged from: the current one, or the last state before a run of transparent ones. */
export function anchorOf(snapshot: WorkflowSnapshot): string {
  return snapshot.anchor ?? snapshot.state;
}

/** Whether a constraint names this state in one of its selectors (not only through `*` or `!other`). */
export function constraintNames(compiled: CompiledConstraint, state: string): boolean {
  if (compiled.custom) return compiled.custom.names.includes(state);
  return [compiled.trigger, compiled.target, compiled.condition].some((selector) => selector?.names.includes(state) === true);
}
const names = constraintNames;

/**
 * The last state a constraint's monitor stepped on: the current state, or, when that is a transparent state the
 * constraint does not name, the state before it. Where its predictions start from.
 */
export function lastSeenBy(workflow: Workflow, snapshot: WorkflowSnapshot, compiled: CompiledConstraint): string {
  const current = snapshot.state;
  return visibility(workflow).transparent.has(current) && !names(compiled, current) ? anchorOf(snapshot) : current;
}

/**
 * How a constraint's monitor takes the move into `to`: `step` (a new position for it), or `skip` (a transparent state
 * it does not name, or a return to the state it last saw, which adds nothing to its trace, unless the constraint has
 * `each` and the step is a tool call: then it is another occurrence).
 */
export function monitorSees(workflow: Workflow, snapshot: WorkflowSnapshot, compiled: CompiledConstraint, to: string, toolCall: boolean): boolean {
  const { transparent } = visibility(workflow);
  if (transparent.has(to) && !names(compiled, to)) return false;
  if (to !== lastSeenBy(workflow, snapshot, compiled)) return true;
  return toolCall && compiled.constraint.each === true;
}
