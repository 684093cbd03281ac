import { analyse } from 'scslre';

/** A problem found in a classification pattern. */
export interface PatternProblem {
  severity: 'error' | 'warning';
  code: 'invalid-regex' | 'catastrophic-regex' | 'slow-regex';
  message: string;
  hint: string;
}

/**
 * Compiles a classification pattern the way the classifier runs it (case-insensitive) and
 * checks it for super-linear backtracking, so a pattern that can hang the process on one crafted response is
 * rejected at load time rather than discovered in production.
 *
 * `Move` reports (an unanchored pattern re-tried at every offset) are left out: nearly every pattern with a
 * quantifier has one, and the classifier bounds the text it matches.
 */
export function compilePattern(source: string): { regex?: RegExp; problem?: PatternProblem } {
  let regex: RegExp;
  try {
    regex = new RegExp(source, 'i');
  } catch (error) {
    return { problem: { severity: 'error', code: 'invalid-regex', message: `pattern /${source}/ does not compile: ${(error as Error).message}`, hint: inlineFlagHint(source) } };
  }
  const backtracking = backtrackingOf(regex);
  if (backtracking?.exponential) {
    return {
      problem: {
        severity: 'error',
        code: 'catastrophic-regex',
        message: `pattern /${source}/ can backtrack catastrophically: matching it against a long run of '${backtracking.character}' takes exponential time`,
        hint: CATASTROPHIC_HINT,
      },
    };
  }
  if (backtracking) {
    return {
      regex,
      problem: {
        severity: 'warning',
        code: 'slow-regex',
        message: `pattern /${source}/ can take polynomial time on a long run of '${backtracking.character}'`,
        hint: backtracking.fixed ? `an equivalent pattern without the problem: ${backtracking.fixed}` : 'avoid adjacent quantifiers that can match the same characters',
      },
    };
  }
  return { regex };
}

/** How to fix a pattern with exponential backtracking. */
export const CATASTROPHIC_HINT = 'rewrite it so no quantified group can match the same text in more than one way (e.g. `(a+)+` -> `a+`)';

/** The worst super-linear backtracking `scslre` finds in a compiled pattern, if any. */
export function backtrackingOf(regex: RegExp): { exponential: boolean; character: string; fixed?: string } | undefined {
  let reports;
  try {
    reports = analyse({ source: regex.source, flags: regex.flags }, { reportTypes: { Move: false } }).reports;
  } catch {
    return undefined; // the analyser does not know every syntax the engine accepts; the pattern itself is valid
  }
  const worst = reports.find((report) => report.exponential) ?? reports[0];
  if (worst === undefined) return undefined;
  const fixed = worst.exponential ? undefined : worst.fix()?.source;
  return { exponential: worst.exponential, character: worst.character.pick, ...(fixed === undefined ? {} : { fixed }) };
}

/** Python's inline flags are the likeliest reason a pattern from a reference-engine file fails here. */
function inlineFlagHint(source: string): string {
  if (/^\(\?[aiLmsux]+\)/.test(source)) return 'JavaScript has no inline flags such as `(?i)`; remove it (patterns are already case-insensitive)';
  if (source.includes('(?P<')) return 'write named groups as `(?<name>...)`, not `(?P<name>...)`';
  return 'patterns are JavaScript regular expressions, matched case-insensitively';
}
