import type { LoopAction, LoopKind } from '../loops/index.js';
import type { ClassifierTier } from '../classify/index.js';
import type { ChatMessage } from '../messages/index.js';
import type { InterventionStrategy, Severity } from '../workflow/index.js';
import type { Verdict } from '../temporal/index.js';

/** Where a transcript came from: its file and, for JSONL, its 1-based line. */
export interface TranscriptOrigin {
  file: string;
  /** 1-based line of a JSONL session; absent for a `.json` file. */
  line?: number;
}

/**
 * Something odd in a transcript that did not stop its audit (tool-call arguments that are not JSON, a tool call of
 * an unknown type). Listed with the session so a reader knows what the audit assumed.
 */
export interface TranscriptWarning {
  /** 0-based index into the session's messages; absent for the session as a whole. */
  message?: number;
  text: string;
}

/** One recorded session, parsed and checked, ready to replay. */
export interface Transcript {
  id: string;
  origin: TranscriptOrigin;
  messages: ChatMessage[];
  warnings: TranscriptWarning[];
}

/** A file, a JSONL line or a message that could not be read: that session (or file) is not audited. */
export interface TranscriptProblem {
  file: string;
  /** 1-based line: the JSONL line, or where a JSON syntax error is. */
  line?: number;
  /** 1-based column of a JSON syntax error. */
  column?: number;
  /** The session it belongs to, when its id was known. */
  session?: string;
  /** What is wrong, starting with where in the document (`messages[3]: ...`). */
  text: string;
}

/**
 * One classified state of an audited session: where it came from in the transcript and why. Every place in the audit
 * (steps, violations, deviations, refusals, interventions, loops, warnings) is named by the same number: `message`,
 * the 0-based index of a message in the session's `messages`, printed `messages[4]`.
 */
export interface AuditStep {
  /** 0-based index of the assistant message it was classified from. */
  message: number;
  state: string;
  method: ClassifierTier;
  confidence: number;
  /** Why: `tool issue_refund`, `pattern /.../`, `exemplar "..." 0.82`, `fallback: no-match`. */
  evidence: string;
  /** The start of the assistant message's text (at most 160 characters), for reports. */
  excerpt: string;
  /**
   * A live monitor would have withheld this message before delivery (it breaks a critical constraint, or one whose
   * intervention is a `block:`): the user would have got the workflow's user message instead, and its state is not
   * in the trace.
   */
  withheld?: true;
}

/** A constraint the session violated. */
export interface AuditViolation {
  constraint: string;
  type: string;
  severity: Severity;
  /**
   * 0-based index of the assistant message whose state violated it. A violation found only when the conversation
   * ended (an `eventually` never met, a `response` still owed) belongs to no message: it gets the transcript's last
   * message, with `atClose: true`.
   */
  message: number;
  /** The state whose entry violated it; absent when the end of the conversation did. */
  state?: string;
  /** Whether the end of the conversation found it. */
  atClose: boolean;
  /** What happened and what would have satisfied it, naming places as `messages[4]`. */
  text: string;
  /** Made by a message a live monitor would have withheld before delivery (see `AuditStep.withheld`). */
  withheld?: true;
}

/** A move along a transition the workflow does not list. */
export interface AuditDeviation {
  from: string;
  to: string;
  /** 0-based index of the assistant message whose state made the move. */
  message?: number;
}

/**
 * A tool call the live monitor would have refused before it ran (its pre-emptive check, `beforeTool`): the call would
 * have entered a state that breaks a critical constraint, or made a move a `block` deviation policy forbids. The
 * transcript's call did run, so the audit still reports the violation it caused.
 */
export interface AuditRefusal {
  /** 0-based index of the assistant message that made the call. */
  message: number;
  tool: string;
  /** The state the call would have entered. */
  state: string;
  /** The critical constraints it would have broken; empty when the deviation policy refused it. */
  constraints: string[];
  /**
   * Set when the call was refused only because the state it needed was entered by another call of the same message,
   * whose result the model had not seen yet.
   */
  unseen?: true;
}

/** What the live monitor would have done to a model call: applied an intervention, or blocked the call. */
export interface AuditIntervention {
  /** 0-based index of the assistant message the model call produced. */
  message: number;
  name: string;
  strategy: InterventionStrategy;
  blocked: boolean;
}

/** A loop the detector found while replaying. */
export interface AuditLoop {
  kind: LoopKind;
  /** What the monitor would have done: hint, stronger hint, or stop the run. */
  action: LoopAction;
  /** 0-based index of the transcript message at which it was found. */
  message: number;
  /** The detector's explanation, for people. */
  detail: string;
}

/** The audit of one session. `id`, `trace`, `steps`, `violations` and `verdicts` come first in the JSON. */
export interface SessionAudit {
  id: string;
  trace: string[];
  steps: AuditStep[];
  violations: AuditViolation[];
  verdicts: Record<string, Verdict>;
  file: string;
  line?: number;
  /** Messages in the transcript. */
  messageCount: number;
  deviations: AuditDeviation[];
  /** Tool calls the live monitor would have refused before they ran. */
  refusals: AuditRefusal[];
  /** What it would have done to each model call. */
  interventions: AuditIntervention[];
  loops: AuditLoop[];
  warnings: TranscriptWarning[];
  /** Set when there was nothing to audit (no assistant message): the session was not closed. */
  note?: string;
}

/** Counts by severity. */
export type SeverityCounts = Record<Severity, number>;

/** The whole audit: every session, every file or session that could not be read, and totals. */
export interface AuditReport {
  workflow: string;
  workflowVersion: string;
  /** The workflow's states in file order, so renderers give each the same colour in every session. */
  states: string[];
  /** Which embedder the exemplar tier used: `lexical`, `minilm`, or `none`. */
  embeddings: string;
  sessions: SessionAudit[];
  problems: TranscriptProblem[];
  summary: {
    files: number;
    sessions: number;
    sessionsWithViolations: number;
    violations: SeverityCounts;
    warnings: number;
    problems: number;
    /** Panoptes' own failures during the replay (an embedder that threw), by cause. */
    misses: Record<string, number>;
  };
}
