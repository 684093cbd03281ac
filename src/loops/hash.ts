// The detector keeps hashes of arguments, results and texts rather than the strings themselves, so a session's
// memory does not grow with the size of what the agent sent or received.
import { hashString } from '../hash/cyrb53.js';

export { hashString };

/** One hash for an ordered list of hashes (a step's calls, a cycle). @internal */
export function hashList(values: readonly number[], seed = 0): number {
  return hashString(values.join(','), seed);
}
