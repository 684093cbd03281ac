export { createClassifier, DEFAULT_MAX_TEXT_LENGTH, type Classifier, type ClassifierOptions } from './classifier.js';
export { EXEMPLAR_TIE_MARGIN, exemplarIndex, type ExemplarIndex } from './exemplars.js';
export { PATTERN_CONFIDENCE } from './patterns.js';
export type { ClassificationEvidence, ClassificationResult, ClassifierTier, FallbackReason } from './types.js';
export { DEFAULT_TIER_TIMEOUT_MS, defineClassificationTier, type ClassificationTier, type ClassificationTierDefinition, type TierAnswer, type TierInput } from './tier.js';
