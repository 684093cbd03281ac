/**
 * Auditing recorded conversations: OpenAI chat transcripts parsed and checked, replayed through a
 * monitor, and reported as text, JSON or a self-contained HTML page. Backs `panoptes audit`.
 * @module
 */
export { auditTranscripts, DEFAULT_AUDIT_CONCURRENCY, DEFAULT_AUDIT_EMBEDDING_TIMEOUT_MS, type AuditOptions } from './audit.js';
export { auditExitCode, DEFAULT_FAIL_ON } from './exit-code.js';
export { convertMessages, TRANSCRIPT_ROLES, type ConvertedMessages } from './messages.js';
export { ACCEPTED_FORMATS, fromAiSdkMessages, fromLangChainMessages, fromOtelExport, isAiSdkMessages, isLangChainMessages, isOtelExport, isRun, runConversation, toOpenAiMessages } from './importers/index.js';
export { parseTranscripts, sessionIdOf, transcriptFormat, type ParsedTranscripts, type TranscriptFormat } from './parse.js';
export { PROGRESS_THRESHOLD, progressLine } from './progress.js';
export { escapeHtml, renderAuditHtml } from './render-html.js';
export { NO_PAINT, problemLine, renderAuditText, type AuditExit, type Paint, type RenderAuditTextOptions } from './render-text.js';
export { replayTranscript } from './replay.js';
export type {
  AuditDeviation,
  AuditIntervention,
  AuditRefusal,
  AuditReport,
  AuditStep,
  AuditViolation,
  SessionAudit,
  SeverityCounts,
  Transcript,
  TranscriptOrigin,
  TranscriptProblem,
  TranscriptWarning,
} from './types.js';
