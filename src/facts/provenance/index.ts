/** Provenance: where each value in a session came from, and how far its source is trusted. */
export { DEFAULT_MAX_ATOM_CHARS, DEFAULT_MAX_ATOMS, extractAtoms, normaliseText, normaliseUrl, type Atom, type AtomExtraction, type AtomKind, type AtomOptions } from './atoms.js';
export {
  candidatesOf,
  type CandidateOptions,
  createProvenanceLog,
  DEFAULT_MAX_OCCURRENCES,
  DEFAULT_MAX_RESULT_ATOMS,
  DEFAULT_MAX_TEXT_CHARS,
  type Occurrence,
  type ProvenanceLog,
  type ProvenanceLogOptions,
  type ProvenanceSnapshot,
  type ProvenanceSource,
  type ProvenanceStats,
  type Trust,
  type TrustOf,
} from './log.js';
