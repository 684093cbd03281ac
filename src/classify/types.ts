/** The tier of the cascade that decided. */
export type ClassifierTier = 'tool_call' | 'pattern' | 'tier' | 'embedding' | 'fallback';

/** One state a model response was classified into, and why. */
export interface ClassificationResult {
  state: string;
  method: ClassifierTier;
  /** 1.0 for a tool call, 0.9 for a pattern, the tier's own for a custom tier, the cosine similarity for an exemplar, 0 for the fallback. */
  confidence: number;
  /** What decided: the tool call, the pattern, or the exemplar and its similarity. */
  evidence: ClassificationEvidence;
}

export type ClassificationEvidence =
  | { kind: 'tool_call'; toolName: string; toolCallId?: string }
  | {
      kind: 'pattern';
      pattern: string;
      match: string;
      /** The other states whose patterns matched too, which the tie went against; absent when only one matched. */
      others?: string[];
    }
  | { kind: 'exemplar'; exemplar: string; similarity: number }
  /** A classification tier given to the monitor (`defineClassificationTier`) decided. */
  | { kind: 'tier'; tier: string }
  | { kind: 'fallback'; reason: FallbackReason; error?: unknown };

/**
 * Why the cascade fell through: nothing matched; there was no text; the exemplars were still being embedded (see
 * `warmUp`); or the embedder failed or ran out of time (a miss the monitor counts; the call goes
 * on).
 */
export type FallbackReason = 'no-match' | 'no-text' | 'warming-up' | 'embedding-failed';
