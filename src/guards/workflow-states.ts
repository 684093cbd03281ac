import type { FactStore } from '../facts/index.js';

/** The predicate under which the workflow's states enter the fact store: `said(offered_insurance)`. */
export const SAID = 'said';

/**
 * Records that the workflow reached these states in this conversation, as facts `said(State)` the rules read
 * (`requires said(offered_insurance) before book_reservation`). States are recorded once; they never expire (a duty
 * done stays done).
 */
export function noteWorkflowStates(facts: FactStore, states: Iterable<string>): void {
  for (const state of states) {
    if (typeof state === 'string' && state !== '' && !facts.has(SAID, [state])) facts.assert(SAID, [state], { source: 'workflow' });
  }
}
