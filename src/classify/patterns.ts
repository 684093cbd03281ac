import { isUserTurnState, type Workflow } from '../workflow/index.js';
import { preferValid } from './prefer-valid.js';
import type { ClassificationResult } from './types.js';

/** Confidence of a pattern match. */
export const PATTERN_CONFIDENCE = 0.9;

/**
 * The tier-2 result: the states whose patterns match `text`, the tie broken toward a valid move. Patterns are the
 * workflow's, compiled once at load (case-insensitive, checked for catastrophic backtracking).
 */
export function classifyPatterns(workflow: Workflow, text: string, currentState: string): ClassificationResult | undefined {
  // The matching states and their first matching pattern, side by side: this runs on every text response.
  const states: string[] = [];
  const matches: Array<{ pattern: string; match: string }> = [];
  for (const state of workflow.stateNames) {
    if (isUserTurnState(workflow, state)) continue; // matched against the user's messages, not this text
    for (const pattern of workflow.patterns(state)) {
      const found = pattern.exec(text);
      if (found) {
        states.push(state);
        matches.push({ pattern: pattern.source, match: found[0].slice(0, 200) });
        break;
      }
    }
  }
  if (states.length === 0) return undefined;
  const state = states.length === 1 ? states[0]! : preferValid(workflow, currentState, states);
  const { pattern, match } = matches[states.indexOf(state)]!;
  // The states the tie went against are kept: a response that also matches a forbidden state is withheld for it.
  const others = states.length === 1 ? undefined : states.filter((candidate) => candidate !== state);
  return { state, method: 'pattern', confidence: PATTERN_CONFIDENCE, evidence: { kind: 'pattern', pattern, match, ...(others ? { others } : {}) } };
}
