import type { Workflow } from '../workflow/index.js';
import { preferValid } from './prefer-valid.js';
import type { ClassificationResult } from './types.js';

/** Confidence of a pattern match (DESIGN.md section 5). */
export const PATTERN_CONFIDENCE = 0.9;

/**
 * The tier-2 result: the states whose patterns match `text`, the tie broken toward a valid move. Patterns are the
 * workflow's, compiled once at load (case-insensitive, checked for catastrophic backtracking).
 */
export function classifyPatterns(workflow: Workflow, text: string, currentState: string): ClassificationResult | undefined {
  const matches = new Map<string, { pattern: string; match: string }>();
  for (const state of workflow.stateNames) {
    for (const pattern of workflow.patterns(state)) {
      const found = pattern.exec(text);
      if (found) {
        matches.set(state, { pattern: pattern.source, match: found[0].slice(0, 200) });
        break;
      }
    }
  }
  if (matches.size === 0) return undefined;
  const state = preferValid(workflow, currentState, [...matches.keys()]);
  return { state, method: 'pattern', confidence: PATTERN_CONFIDENCE, evidence: { kind: 'pattern', ...matches.get(state)! } };
}
