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
}

const cache = new WeakMap<Workflow, Visibility>();

function visibility(workflow: Workflow): Visibility {
  let found = cache.get(workflow);
  if (!found) {
    found = {
      transparent: new Set(workflow.definition.states.filter((state) => state.transparent).map((state) => state.name)),
      transparentTools: new Set((workflow.definition.transparentTools ?? []).map(normaliseToolName)),
      hasEach: compiledConstraints(workflow).some((compiled) => compiled.constraint.each === true),
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

/** The state the next move is judged from: the current one, or the last state before a run of transparent ones. */
export function anchorOf(snapshot: WorkflowSnapshot): string {
  return snapshot.anchor ?? snapshot.state;
}

/** Whether a constraint names this state in one of its selectors (not only through `*` or `!other`). */
function names(compiled: CompiledConstraint, state: string): boolean {
  return [compiled.trigger, compiled.target, compiled.condition].some((selector) => selector?.names.includes(state) === true);
}

/**
 * How a constraint's monitor takes the move into `to`: `step` (a new position for it), or `skip` (a transparent state
 * it does not name, or a return to the state it last saw, which adds nothing to its trace, unless the constraint has
 * `each` and the step is a tool call: then it is another occurrence).
 */
export function monitorSees(workflow: Workflow, snapshot: WorkflowSnapshot, compiled: CompiledConstraint, to: string, toolCall: boolean): boolean {
  const { transparent } = visibility(workflow);
  if (transparent.has(to) && !names(compiled, to)) return false;
  const current = snapshot.state;
  const lastSeen = transparent.has(current) && !names(compiled, current) ? anchorOf(snapshot) : current;
  if (to !== lastSeen) return true;
  return toolCall && compiled.constraint.each === true;
}
