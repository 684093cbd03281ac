import type { Workflow } from '../workflow/index.js';

/**
 * Breaks a tie between candidate states: staying in the current state first, then a state the
 * workflow allows next, then the first candidate in the order given (file order, or best score first).
 */
export function preferValid(workflow: Workflow, from: string, candidates: readonly string[]): string {
  if (candidates.includes(from)) return from;
  return candidates.find((state) => workflow.isAllowed(from, state)) ?? candidates[0]!;
}
