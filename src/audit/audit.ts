import { readFile } from 'node:fs/promises';
import { ROOT_CONTEXT, type Meter, type Tracer } from '@opentelemetry/api';
import { systemClock, type Clock } from '../clock/index.js';
import type { Embedder } from '../embed/index.js';
import { readFailureDiagnostic, readFailureReason } from '../diagnostics/read-failure.js';
import { InvalidOptionError } from '../errors/index.js';
import { createMonitor, type Logger, type MonitorSession } from '../monitor/index.js';
import { createMemorySessionStore } from '../store/index.js';
import { SEVERITIES, type Workflow } from '../workflow/index.js';
import { ATTR, createTelemetry, OPERATION, SPAN } from '../telemetry/index.js';
import { parseTranscripts } from './parse.js';
import { mapBounded } from './pool.js';
import { replayTranscript } from './replay.js';
import type { AuditReport, SessionAudit, Transcript, TranscriptProblem } from './types.js';

/** Files read, and sessions replayed, at the same time. */
export const DEFAULT_AUDIT_CONCURRENCY = 4;
/**
 * Budget of one embedding during an audit, in milliseconds. Nobody waits on an audit the way an agent waits on a
 * model call, so the monitor's 50 ms default would only turn a slow local model's answers into misses.
 */
export const DEFAULT_AUDIT_EMBEDDING_TIMEOUT_MS = 30_000;

/** Options of {@link auditTranscripts}. */
export interface AuditOptions {
  workflow: Workflow;
  /** Transcript files: `.json` (one session) or `.jsonl` (one session per line). */
  files: readonly string[];
  /** Enables the exemplar tier. Without it, states are recognised by tool calls and patterns only. */
  embeddings?: Embedder;
  /** How the report names the embedder (`lexical`, `minilm`). @default 'none' without embeddings, else 'custom' */
  embeddingsLabel?: string;
  /** @default 30000 */
  embeddingTimeoutMs?: number;
  /** Files read and sessions replayed at once. @default 4 */
  concurrency?: number;
  /** @default systemClock */
  clock?: Clock;
  /** Receives the monitor's own failures (an embedder that throws), once per cause. @default console */
  logger?: Logger;
  /** Called after each session is replayed; `total` is known once every file is read. */
  onProgress?: (progress: { done: number; total: number }) => void;
  /**
   * Where the replay's spans go: each session is a trace of its own, a `panoptes.audit {id}` span with the monitor's
   * spans under it (they nest only with a context manager registered, as `panoptes audit --otlp` does).
   * @default the global tracer provider's
   */
  tracer?: Tracer;
  /** Where the replay's metrics go. @default the global meter provider's */
  meter?: Meter;
}

/**
 * Audits recorded conversations against a workflow: reads each file, replays each session through a fresh monitor
 * session (its steps, trace and deviations collected as they happen) and closes it. A file or session that cannot be
 * read becomes a problem in the report; the others are audited regardless. Sessions and files keep their input order.
 * All files are parsed before the first replay, so the progress total is known; memory grows with the input's size.
 * @throws {InvalidOptionError} when `concurrency` is not a positive whole number.
 * @example
 * const report = await auditTranscripts({ workflow: await loadWorkflow('support.yaml'), files: ['chats.jsonl'] });
 * for (const session of report.sessions) console.log(session.id, session.violations.length);
 */
export async function auditTranscripts({
  workflow,
  files,
  embeddings,
  embeddingsLabel = embeddings ? 'custom' : 'none',
  embeddingTimeoutMs = DEFAULT_AUDIT_EMBEDDING_TIMEOUT_MS,
  concurrency = DEFAULT_AUDIT_CONCURRENCY,
  clock = systemClock,
  logger,
  onProgress,
  tracer,
  meter,
}: AuditOptions): Promise<AuditReport> {
  if (!Number.isInteger(concurrency) || concurrency <= 0) {
    throw new InvalidOptionError({ parameter: 'concurrency', value: concurrency, fix: 'Pass a positive whole number; the default is 4.' });
  }
  const parsed = await mapBounded(files, concurrency, readTranscripts);
  const transcripts = parsed.flatMap((file) => file.transcripts);
  const problems = parsed.flatMap((file) => file.problems);
  warnAboutDuplicateIds(transcripts);

  // Sessions are deleted once reported, so the store holds only the ones in flight, whatever the input's size.
  const store = createMemorySessionStore<MonitorSession>({ ttlMs: Infinity, clock });
  const telemetryOptions = { ...(tracer ? { tracer } : {}), ...(meter ? { meter } : {}) };
  const telemetry = createTelemetry(telemetryOptions);
  const monitor = createMonitor({ workflow, store, clock, embeddingTimeoutMs, loops: true, ...(embeddings ? { embeddings } : {}), ...(logger ? { logger } : {}), ...telemetryOptions });
  // Without this the first turns would be classified while the exemplars are still being embedded ("warming-up").
  await monitor.warmUp().catch(() => undefined); // a failure is counted by the monitor; turns fall back without embeddings

  let done = 0;
  const sessions = await mapBounded(transcripts, concurrency, async (transcript, index) => {
    const key = `audit-${index}`;
    const span = telemetry.startSpan(
      `${SPAN.audit} ${transcript.id}`,
      {
        [ATTR.operationName]: OPERATION.audit,
        [ATTR.conversationId]: transcript.id,
        [ATTR.sessionId]: transcript.id,
        [ATTR.workflow]: workflow.name,
        [ATTR.auditFile]: transcript.origin.file,
        ...(transcript.origin.line === undefined ? {} : { [ATTR.auditLine]: transcript.origin.line }),
      },
      undefined,
      ROOT_CONTEXT,
    );
    const session = await telemetry.withSpan(span, () => replayTranscript(monitor, transcript, key));
    telemetry.setAttributes(span, { [ATTR.auditTrace]: session.trace, [ATTR.violationCount]: session.violations.length, [ATTR.constraints]: session.violations.map((violation) => violation.constraint) });
    telemetry.end(span);
    await store.delete(key);
    done += 1;
    onProgress?.({ done, total: transcripts.length });
    return session;
  });
  return {
    workflow: workflow.name,
    workflowVersion: workflow.definition.version,
    states: [...workflow.stateNames],
    embeddings: embeddingsLabel,
    sessions,
    problems,
    summary: summarise(files.length, sessions, problems, monitor.misses()),
  };
}

async function readTranscripts(file: string): Promise<{ transcripts: Transcript[]; problems: TranscriptProblem[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { transcripts: [], problems: [{ file, text: readFailureReason(readFailureDiagnostic(file, error)) }] };
  }
  return parseTranscripts(text, { file });
}

/** Reports keyed by id would silently merge two sessions; say so where it happens. */
function warnAboutDuplicateIds(transcripts: readonly Transcript[]): void {
  const first = new Map<string, Transcript>();
  for (const transcript of transcripts) {
    const earlier = first.get(transcript.id);
    if (!earlier) {
      first.set(transcript.id, transcript);
      continue;
    }
    const where = earlier.origin.line === undefined ? earlier.origin.file : `${earlier.origin.file}:${earlier.origin.line}`;
    transcript.warnings.push({ text: `session id '${transcript.id}' is also used by ${where}` });
  }
}

function summarise(files: number, sessions: readonly SessionAudit[], problems: readonly TranscriptProblem[], misses: Readonly<Record<string, number | undefined>>): AuditReport['summary'] {
  const violations = Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as AuditReport['summary']['violations'];
  for (const session of sessions) for (const violation of session.violations) violations[violation.severity] += 1;
  return {
    files,
    sessions: sessions.length,
    sessionsWithViolations: sessions.filter((session) => session.violations.length > 0).length,
    violations,
    warnings: sessions.reduce((sum, session) => sum + session.warnings.length, 0),
    problems: problems.length,
    misses: Object.fromEntries(Object.entries(misses).filter((entry): entry is [string, number] => entry[1] !== undefined)),
  };
}
