export { type Diagnostic, formatDiagnostic } from './diagnostic.js';
export { closestName, createDidYouMean, DEFAULT_SUGGESTION_LIMIT, didYouMean } from './did-you-mean.js';
