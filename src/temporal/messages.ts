import { describeCustom } from './custom.js';
import type { CompiledConstraint } from './monitor.js';
import { ANY_STATE, describeSelector, NOT_PREFIX } from './selector.js';
import type { MonitorState, StateSelector } from './types.js';

/**
 * Says what broke the constraint and what would have satisfied it, from the violated monitor state alone, e.g.
 * "Entered 'process_refund' at trace position 4 before any of 'verify_identity'. 'verify_identity' must come before
 * 'process_refund'." For a monitor that is not violated it says so plainly.
 * @example
 * const compiled = compileConstraint({ name: 'verify-first', type: 'precedence', trigger: 'process_refund', target: 'verify_identity' });
 * let state = initialMonitorState(compiled);
 * for (const entered of ['greeting', 'process_refund']) state = stepMonitor(compiled, state, entered);
 * describeViolation(compiled, state);
 * // "Entered 'process_refund' at trace position 2 before any of 'verify_identity'. 'verify_identity' must come before 'process_refund'."
 */
export function describeViolation(compiled: CompiledConstraint, monitorState: MonitorState): string {
  if (compiled.custom) return describeCustom(compiled.custom, compiled.constraint.name, monitorState);
  const { violation, open } = monitorState;
  if (monitorState.verdict !== 'violated' || !violation) return `Constraint '${compiled.constraint.name}' is ${monitorState.verdict}.`;
  const { trigger, target, condition } = compiled.constraint;
  const entered = `Entered '${violation.state}' at trace position ${violation.step}`;
  switch (compiled.type) {
    case 'eventually':
      return `${endedAfter(violation.step)} without reaching ${group(target, 'any of')}. ${capitalise(group(target))} must be reached before the session ends.`;
    case 'never':
      return `${entered}. ${capitalise(group(target))} must never be entered.`;
    case 'always':
      return `${entered}, which is not ${group(condition, 'one of')}. Every state must be ${group(condition, 'one of')}.`;
    case 'precedence':
      if (compiled.constraint.each) return `${entered} with no ${group(target, 'any of')} since the previous '${violation.state}' (or the start). Each '${violation.state}' needs its own ${group(target)} before it.`;
      return `${entered} before ${group(target, 'any of', true)}. ${capitalise(group(target))} must come before '${violation.state}'.`;
    case 'response':
      if (compiled.constraint.each && !violation.atClose) return `${entered} while '${open?.state}' at trace position ${open?.step} was still unanswered. Each '${open?.state}' needs its own ${group(target)} after it.`;
      return `${at(open)} and the session ended without ${group(target, 'any of')} after it. ${capitalise(group(target))} must follow '${open?.state}'.`;
    case 'until': {
      const rule = `Once ${group(trigger)} is entered, ${group(target)} must be reached with only ${group(trigger, 'one of')} in between.`;
      if (violation.atClose) return `${at(open)} and the session ended before reaching ${group(target, 'any of')}. ${rule}`;
      return `${entered}, after '${open?.state}' at trace position ${open?.step} and before reaching ${group(target, 'any of')}. ${rule}`;
    }
    case 'next': {
      if (!compiled.trigger) {
        const rule = `The second state must be ${group(target, 'one of')}.`;
        if (!violation.atClose) return `${entered}. ${rule}`;
        return violation.step === 0 ? `${endedAfter(0)}. ${rule}` : `${endedAfter(violation.step)}, before a second state. ${rule}`;
      }
      const rule = `${capitalise(group(target))} must come directly after '${open?.state}'.`;
      if (violation.atClose) return `The session ended right after '${open?.state}' at trace position ${open?.step}. ${rule}`;
      return `${entered}, right after '${open?.state}'. ${rule}`;
    }
  }
}

/**
 * Says why a pending constraint is doomed: what is still owed and that no path of the workflow from the current
 * state provides it, e.g. "'resolution' must still be reached, and no path from 'closed_account' leads there."
 * @param currentWorkflowState The state the session is in.
 * @param monitorState The doomed monitor, when known: lets `response` name the trigger still unanswered.
 */
export function describeDoomed(compiled: CompiledConstraint, currentWorkflowState: string, monitorState?: MonitorState): string {
  const { trigger, target } = compiled.constraint;
  const from = `'${currentWorkflowState}'`;
  const open = monitorState?.open;
  switch (compiled.type) {
    case 'eventually':
      return `${capitalise(group(target))} must still be reached, and no path from ${from} leads there.`;
    case 'response': {
      const after = open ? `'${open.state}' (trace position ${open.step})` : group(trigger);
      return `${capitalise(group(target))} must still follow ${after}, and no path from ${from} leads there.`;
    }
    case 'until':
      return `${capitalise(group(target))} must still be reached with only ${group(trigger, 'one of')} on the way, and no path from ${from} does that.`;
    case 'next':
      if (!compiled.trigger) return `The second state must be ${group(target, 'one of')}, and no transition from ${from} leads there.`;
      return `${capitalise(group(target))} must come directly after ${from}, and no transition from ${from} leads there.`;
    default:
      return `Constraint '${compiled.constraint.name}' can no longer be satisfied: no path from ${from} satisfies it.`;
  }
}

/**
 * A selector in a sentence, names quoted. `lead` words a list of plain names ("any of 'a', 'b'", "one of ...");
 * `always` puts the lead even before a single name, as in "before any of 'verify_identity'".
 */
function group(selector: StateSelector | undefined, lead: 'any of' | 'one of' = 'any of', always = false): string {
  if (selector === undefined) return 'no state';
  const elements = typeof selector === 'string' ? [selector] : selector;
  const plain = elements.every((element) => element !== ANY_STATE && !element.startsWith(NOT_PREFIX));
  if (!plain) return describeSelector(selector, { quoted: true });
  const names = [...new Set(elements)].map((name) => `'${name}'`);
  return names.length === 1 && !always ? names[0]! : `${lead} ${names.join(', ')}`;
}

function at(point: { step: number; state: string } | undefined): string {
  return point ? `Entered '${point.state}' at trace position ${point.step}` : 'The session ended';
}

function endedAfter(steps: number): string {
  if (steps === 0) return 'The session ended before entering any state';
  return `The session ended after trace position ${steps}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
