/**
 * Suggests the known name closest to `name`, or nothing when none is close enough to be a likely typo.
 * Distance is Levenshtein, case-insensitive; "close" means at most a third of the longer name's length.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  const lowered = name.toLowerCase();
  for (const candidate of known) {
    // The distance is at least the difference in length: skip what cannot beat the best so far.
    if (Math.abs(candidate.length - name.length) >= bestDistance) continue;
    const distance = levenshtein(lowered, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  return bestDistance <= Math.max(1, Math.floor(Math.max(name.length, best.length) / 3)) ? best : undefined;
}

/** `did you mean 'x'?` when a close name exists, else an empty string. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const suggestion = closestName(name, known);
  return suggestion === undefined ? '' : `did you mean '${suggestion}'?`;
}

/** Suggestions one check of a file makes at most, unless told otherwise; see `createDidYouMean`. */
export const DEFAULT_SUGGESTION_LIMIT = 50;

/**
 * A `didYouMean` that answers `''` after `limit` suggestions were asked for. Each one compares the name with every
 * known name, so a hostile file with thousands of unknown names among thousands of known ones would cost their
 * product (80 s for 7,000 x 8,000); an author fixes the first few anyway.
 */
export function createDidYouMean(limit = DEFAULT_SUGGESTION_LIMIT): (name: string, known: Iterable<string>) => string {
  let asked = 0;
  return (name, known) => (asked++ < limit ? didYouMean(name, known) : '');
}

function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
