import { DEFAULT_MAX_TEXT_LENGTH } from '../classify/classifier.js';
import { canWithhold, previewWithhold, type Workflow, type WorkflowSnapshot } from '../workflow/index.js';
import type { TextWatch } from './types.js';

/**
 * Characters of text already seen that each delta is read with: a pattern match up to this long is found whatever
 * the deltas' sizes. Longer matches are found only when the response is classified at its end.
 */
export const TEXT_WATCH_WINDOW = 512;

/**
 * The text watch of a session in `snapshot`: the states a text response would be withheld for now, and their patterns.
 * Undefined when there are none, so a host neither watches nor holds. Each delta costs a scan of the window by those
 * states' patterns only (a workflow has few), rather than a classification of the whole text so far.
 */
export function createTextWatch(workflow: Workflow, snapshot: WorkflowSnapshot, overflowed: TextWatch['overflowed']): TextWatch | undefined {
  if (!canWithhold(workflow) || snapshot.status !== 'active') return undefined;
  const states = withheldStates(workflow, snapshot);
  if (states.length === 0) return undefined;
  const watched = states.flatMap((state) => workflow.patterns(state).map((pattern) => ({ state, pattern })));
  let tail = '';
  let read = 0; // characters fed so far, up to the classifier's limit
  return {
    states,
    overflowed,
    text(delta) {
      if (watched.length === 0 || read >= DEFAULT_MAX_TEXT_LENGTH || delta === '') return null;
      // The classifier reads only the first 8,000 characters: a match past them could not withhold the response.
      const piece = delta.length > DEFAULT_MAX_TEXT_LENGTH - read ? delta.slice(0, DEFAULT_MAX_TEXT_LENGTH - read) : delta;
      read += piece.length;
      const window = tail + piece;
      tail = window.length > TEXT_WATCH_WINDOW ? window.slice(-TEXT_WATCH_WINDOW) : window;
      for (const { state, pattern } of watched) if (pattern.test(window)) return { state, pattern: pattern.source };
      return null;
    },
  };
}

/**
 * The states a text response would be withheld for, by the session's constraint monitors and current state: all a
 * preview reads. Kept per monitors object, which snapshots share until a monitor changes (every new session of a
 * workflow shares its first one), so a stream does not preview every state again on each call.
 */
const cache = new WeakMap<WorkflowSnapshot['monitors'], Map<string, readonly string[]>>();

function withheldStates(workflow: Workflow, snapshot: WorkflowSnapshot): readonly string[] {
  let byState = cache.get(snapshot.monitors);
  if (!byState) cache.set(snapshot.monitors, (byState = new Map()));
  let states = byState.get(snapshot.state);
  if (!states) {
    // Only states a text can be classified as: one known by its tool calls alone never withholds a text.
    states = workflow.definition.states
      .filter(({ name, classification }) => (classification.patterns.length > 0 || classification.exemplars.length > 0) && previewWithhold(workflow, snapshot, name) !== undefined)
      .map(({ name }) => name);
    byState.set(snapshot.state, states);
  }
  return states;
}
