export { type Diagnostic, formatDiagnostic } from './diagnostic.js';
export { closestName, createDidYouMean, DEFAULT_SUGGESTION_LIMIT, didYouMean } from './did-you-mean.js';
export { isReadFailure, readFailureDiagnostic, readFailureLine, readFailureReason } from './read-failure.js';
