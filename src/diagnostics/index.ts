export { type Diagnostic, formatDiagnostic } from './diagnostic.js';
export { closestName, didYouMean } from './did-you-mean.js';
