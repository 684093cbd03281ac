/** The fact store: the session's facts with source and expiry, context bindings, derived conclusions. */
export { canonicalJson, fitsPattern, formatFact, formatValue, valueKey, type ContextBinding, type Fact, type FactSource } from './fact.js';
export {
  createFactStore,
  MAX_READ_VALUE_LENGTH,
  MAX_READ_VALUES,
  MAX_USER_MESSAGE_LENGTH,
  MAX_USER_MESSAGES,
  type DerivedDependencies,
  type DerivedFact,
  type FactSeed,
  type FactStore,
  type FactStoreOptions,
  type FactStoreSnapshot,
  type FetchRecord,
  type StoredFact,
} from './fact-store.js';
export { MAX_EXCHANGE_TEXT, type Exchange } from './exchange.js';
export { DEFAULT_SUMMARY_MAX_FACTS, renderSummary, type SummarizeOptions } from './summarize.js';
export * from './provenance/index.js';
