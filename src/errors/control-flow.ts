/**
 * Whether an error is the host's control flow rather than a failure. LangGraph raises its interrupts (a tool asking
 * a human through `interrupt()`) and commands as errors marked `is_bubble_up`; the core knows the mark, not the
 * framework. Panoptes never turns one into a refusal or a logged failure: a data tool or guard that raises one
 * raises it out of the check, so the host can pause the run and resume it later.
 * @example
 * try { await sentinel.check(tool, args); } catch (error) { if (isHostControlFlow(error)) throw error; }
 */
export function isHostControlFlow(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { is_bubble_up?: unknown }).is_bubble_up === true;
}
