import { existsSync } from 'node:fs';
import { context as contextApi } from '@opentelemetry/api';
import { InvalidArgumentError } from 'commander';
import { basename, dirname, join, resolve } from 'node:path';
import {
  auditExitCode,
  auditTranscripts,
  DEFAULT_AUDIT_CONCURRENCY,
  DEFAULT_FAIL_ON,
  PROGRESS_THRESHOLD,
  progressLine,
  renderAuditHtml,
  renderAuditText,
  type AuditReport,
} from '../../audit/index.js';
import {
  createLexicalEmbedder,
  createTransformersEmbedder,
  DEFAULT_TRANSFORMERS_MODEL,
  MissingDependencyError,
  type Embedder,
  type TransformersEmbedderOptions,
} from '../../embed/index.js';
import { PanoptesError } from '../../errors/index.js';
import { loadWorkflow, type Severity, type Workflow } from '../../workflow/index.js';
import type { Output } from '../output.js';
import { registryOrReport } from '../extension-modules.js';
import { createAsyncContextManager, createRecordingTracer, exportOtlp } from '../otlp.js';
import { writeErrorReason, writeFileAtomic } from '../write-file-atomic.js';

/** Commander's parser for `--concurrency`. */
export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new InvalidArgumentError('expected a positive whole number.');
  return number;
}

/** Which embedder the exemplar tier uses. `lexical` only recognises near-verbatim exemplars; `minilm` paraphrases. */
export type AuditEmbeddings = 'lexical' | 'minilm' | 'none';

export interface AuditCommandOptions {
  workflow: string;
  json?: boolean;
  html?: string;
  /** @default 'lexical' when the workflow has exemplars, else 'none' */
  embeddings?: AuditEmbeddings;
  /** A folder holding the model (`config.json`, `tokenizer.json`, `onnx/model.onnx`), or the folder above it. */
  modelPath?: string;
  /** @default 'Xenova/all-MiniLM-L6-v2' */
  model?: string;
  /** @default 'error' */
  failOn?: Severity;
  /** @default 4 */
  concurrency?: number;
  /** An OTLP/HTTP endpoint to export each replayed session to, as a trace. */
  otlp?: string;
  /** `--module <file>`: modules whose constraint types, strategies and tiers the workflow may name. */
  module?: string[];
}

/** Where the progress bar goes: stderr, redrawn in place, only when it is a terminal. */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * `panoptes audit --workflow <file> <transcripts...>`: replays recorded conversations through the monitor and
 * reports each session's states, violations and verdicts, as text, `--json`, and/or an `--html` page.
 * @returns the exit code: 0 when no session has a violation of severity `failOn` (default `error`) or worse, 1 when
 * one has, 2 when the workflow, a `--module`, the embedder, a transcript file or a session could not be read, the `--otlp` export failed, or the `--html` page
 * could not be written. The printed report names the same status.
 */
export async function auditCommand(files: string[], options: AuditCommandOptions, output: Output, progress: ProgressStream = process.stderr): Promise<number> {
  const failOn = options.failOn ?? DEFAULT_FAIL_ON;
  let workflow: Workflow;
  let embedder: { embeddings?: Embedder; label: AuditEmbeddings };
  const registry = await registryOrReport(options.module, output);
  if (!registry) return 2;
  try {
    workflow = await loadWorkflow(options.workflow, { registry });
    embedder = await chooseEmbedder(workflow, options);
  } catch (error) {
    if (!PanoptesError.isInstance(error) && !(error instanceof ModelLoadError)) throw error;
    output.err(error.message);
    return 2;
  }

  const bar = progressBar(progress);
  // With --otlp, the replay's spans are kept in memory and sent once it is done; a context manager lets the
  // monitor's spans nest under each session's span across awaits.
  const recording = options.otlp === undefined ? undefined : createRecordingTracer();
  if (recording) contextApi.setGlobalContextManager(createAsyncContextManager());
  const report = await auditTranscripts({
    ...(recording ? { tracer: recording.tracer } : {}),
    workflow,
    files,
    ...(embedder.embeddings ? { embeddings: embedder.embeddings } : {}),
    embeddingsLabel: embedder.label,
    concurrency: options.concurrency ?? DEFAULT_AUDIT_CONCURRENCY,
    logger: { warn: (message) => output.err(message) },
    onProgress: bar.update,
  });
  bar.clear();
  if (recording) contextApi.disable();

  // The page is written (and the traces sent) before anything is printed, so the report announces the status the
  // process exits with.
  const htmlError = options.html === undefined ? undefined : await writeHtml(options.html, report, failOn);
  const otlpError = recording && (await exportOtlp(options.otlp!, recording.spans(), { headers: otlpHeaders(process.env.OTEL_EXPORTER_OTLP_HEADERS) }));
  const exit =
    htmlError !== undefined ? { code: 2, reason: 'the HTML report could not be written' } : otlpError ? { code: 2, reason: 'the traces could not be exported' } : undefined;
  const code = exit?.code ?? auditExitCode(report, failOn);
  if (options.json) output.out(JSON.stringify(jsonReport(report, failOn, code), null, 2));
  else for (const line of renderAuditText(report, { paint: output.colors, failOn, ...(exit ? { exit } : {}) })) output.out(line);
  if (otlpError) output.err(`--otlp: ${otlpError}`);
  else if (recording) output.err(`exported ${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'} (${recording.spans().length} spans) to ${options.otlp}`);
  if (htmlError !== undefined) output.err(htmlError);
  // stdout stays pure JSON under --json.
  else if (options.html !== undefined) (options.json ? output.err : output.out)(`wrote ${options.html}`);
  return code;
}

/** `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas, values URL-encoded. */
function otlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      headers[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
    }
  }
  return headers;
}

/** Writes the HTML page whole or not at all; returns why it could not be written, if it could not. */
async function writeHtml(file: string, report: AuditReport, failOn: Severity): Promise<string | undefined> {
  try {
    await writeFileAtomic(file, renderAuditHtml(report, { failOn }));
    return undefined;
  } catch (error) {
    return `cannot write ${file}: ${writeErrorReason(error)}`;
  }
}

async function chooseEmbedder(workflow: Workflow, options: AuditCommandOptions): Promise<{ embeddings?: Embedder; label: AuditEmbeddings }> {
  const hasExemplars = workflow.definition.states.some((state) => state.classification.exemplars.length > 0);
  const kind = options.embeddings ?? (hasExemplars ? 'lexical' : 'none');
  if (kind === 'none') return { label: 'none' };
  if (kind === 'lexical') return { embeddings: createLexicalEmbedder(), label: 'lexical' };
  const location = modelLocation(options);
  const embeddings = createTransformersEmbedder(location);
  // Fail now, with the package's or the folder's own message, not as a miss on every turn.
  try {
    await embeddings.warmUp();
  } catch (error) {
    // The error's own advice names an API function; on the command line the alternative is a flag.
    if (MissingDependencyError.isInstance(error)) {
      throw new ModelLoadError(
        `--embeddings minilm needs the optional package \`${error.packageName}\`, which is not installed. Install it next to panoptes (\`npm install ${error.packageName}\`), or pass --embeddings lexical (near-verbatim exemplars only; needs nothing).`,
      );
    }
    if (PanoptesError.isInstance(error)) throw error;
    const where = location.localModelPath === undefined ? `model '${location.model}'` : `model '${location.model}' from ${location.localModelPath}`;
    throw new ModelLoadError(`cannot load the embedding ${where}: ${(error as Error).message}\n--model-path takes the model folder (config.json, tokenizer.json, onnx/model.onnx) or the folder above it.`);
  }
  return { embeddings, label: 'minilm' };
}

/** A local model that will not load: reported like a bad workflow, with exit code 2. */
class ModelLoadError extends Error {}

/**
 * `--model-path` may name the model folder itself (it has a `config.json`) or the folder above it, as
 * transformers.js's `localModelPath` expects. Either way only local files are read.
 */
function modelLocation({ modelPath, model = DEFAULT_TRANSFORMERS_MODEL }: AuditCommandOptions): TransformersEmbedderOptions & { model: string } {
  if (modelPath === undefined) return { model };
  const folder = resolve(modelPath);
  if (existsSync(join(folder, 'config.json'))) return { model: basename(folder), localModelPath: dirname(folder), allowRemoteModels: false };
  return { model, localModelPath: folder, allowRemoteModels: false };
}

/** The report with the promised keys first (`workflow`, `sessions`), then the verdict of the whole audit. */
function jsonReport(report: AuditReport, failOn: Severity, exitCode: number) {
  const { workflow, sessions, problems, summary, ...rest } = report;
  return { workflow, sessions, problems, summary, failOn, exitCode, ...rest };
}

/** Redraws one stderr line per percent of progress; nothing when stderr is not a terminal or the audit is small. */
function progressBar(stream: ProgressStream): { update: (progress: { done: number; total: number }) => void; clear: () => void } {
  let drawn = -1;
  return {
    update: ({ done, total }) => {
      if (!stream.isTTY || total <= PROGRESS_THRESHOLD) return;
      const percent = Math.floor((done * 100) / total);
      if (percent === drawn) return;
      drawn = percent;
      stream.write(`\r${progressLine(done, total)}`);
    },
    clear: () => {
      if (drawn >= 0) stream.write('\r\u001b[2K');
    },
  };
}
