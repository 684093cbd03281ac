import type { ClassificationResult } from '../classify/index.js';
import type { ChatMessage } from '../messages/index.js';
import type { Monitor, SessionReport } from '../monitor/index.js';
import { createSnapshot, verdictsOf, type DeviationRecord } from '../workflow/index.js';
import type { AuditIntervention, AuditLoop, AuditStep, AuditViolation, SessionAudit, Transcript } from './types.js';

/** Longest excerpt of an assistant message kept in a step: enough to recognise it, never the whole 10 MB. */
const EXCERPT_LENGTH = 160;

/** What a live host that can withhold answers tells the monitor (the adapters' default, `onViolatingText: 'replace'`). */
const WITHHOLD = { withhold: true } as const;

/** One replayed assistant message: its classifications, and whether the live monitor would have withheld it. */
interface Turn {
  message: number;
  excerpt: string;
  classifications: ClassificationResult[];
  withheld?: true;
}

/**
 * Replays one recorded session through a monitor: `beforeModel` with the messages so far and `afterModel` for each
 * assistant message, then `endSession`. `beforeTool` is never called: every call in a transcript did run, so its
 * state enters the trace at the next model call or at the end, as the monitor does for calls it was not asked about.
 * Each answer is classified as a live host that can withhold does by default (`withhold: true`): one that breaks a
 * critical constraint, or one whose intervention is a `block:`, is marked withheld before delivery, with its
 * violations, and the replay goes on from the state the user saw, with the guidance the live monitor would have given.
 * @param key The monitor's session id; unique per replay, since two files may hold sessions with the same id.
 */
export async function replayTranscript(monitor: Monitor, transcript: Transcript, key: string): Promise<SessionAudit> {
  // The keys the issue promises come first, so the JSON reads in that order.
  const extras = {
    file: transcript.origin.file,
    ...(transcript.origin.line === undefined ? {} : { line: transcript.origin.line }),
    messageCount: transcript.messages.length,
    warnings: transcript.warnings,
  };
  if (!transcript.messages.some((message) => message.role === 'assistant')) {
    // Closing would judge an agent that never spoke (an `eventually` would fail); report the initial state instead.
    const snapshot = createSnapshot(monitor.workflow, { at: 0 });
    const note = transcript.messages.length === 0 ? 'empty conversation: nothing to audit' : 'no assistant message: nothing to audit';
    return { id: transcript.id, trace: snapshot.trace, steps: [], violations: [], verdicts: verdictsOf(snapshot), ...extras, deviations: [], interventions: [], loops: [], note };
  }

  const turns: Turn[] = [];
  const interventions: AuditIntervention[] = [];
  const loops: AuditLoop[] = [];
  // The whole trace and every deviation are collected from the monitor's events: its session keeps only the last
  // `historyLimit` of them, since a session that kept everything would copy it all on every step (a 100,000-message
  // transcript took 18 s that way; now time is linear in its length).
  const trace = [createSnapshot(monitor.workflow, { at: 0 }).state];
  const deviations: DeviationRecord[] = [];
  let current = 0;
  const listeners = [
    monitor.on('loop', ({ sessionId, report }) => {
      // The replay's session key is internal to the audit; the report names the transcript instead.
      if (sessionId === key) loops.push({ kind: report.kind, action: report.action, message: current, detail: report.message.replace(` in session '${key}'`, '') });
    }),
    monitor.on('state-change', ({ sessionId, to }) => {
      if (sessionId === key) trace.push(to);
    }),
    monitor.on('deviation', ({ sessionId, deviation }) => {
      if (sessionId === key) deviations.push(deviation);
    }),
  ];
  // One growing array, not a slice per call: a long session stays linear.
  const soFar: ChatMessage[] = [];
  for (const [index, message] of transcript.messages.entries()) {
    current = index;
    if (message.role === 'assistant') {
      const before = await monitor.beforeModel(key, { messages: soFar });
      if (before.action === 'block') interventions.push({ beforeMessage: index, name: before.intervention.name, strategy: before.intervention.strategy, blocked: true });
      else for (const { name, strategy } of before.interventions) interventions.push({ beforeMessage: index, name, strategy, blocked: false });
      const after = await monitor.afterModel(key, { content: message.content, toolCalls: message.toolCalls ?? [] }, WITHHOLD);
      turns.push({ message: index, excerpt: excerptOf(message.content), classifications: after.classifications, ...(after.withheld ? { withheld: true as const } : {}) });
    }
    soFar.push(message);
  }
  const report = await monitor.endSession(key);
  for (const stop of listeners) stop();
  const steps = stepsOf(turns);
  return {
    id: transcript.id,
    trace,
    steps,
    violations: violationsOf(report, steps),
    verdicts: report.verdicts,
    ...extras,
    deviations: deviations.map(({ from, to, step }) => ({ from, to, ...(step === undefined ? {} : { step }) })),
    interventions,
    loops,
  };
}

/**
 * The steps the monitor recorded, with the transcript message each came from and the classifier's reason. The audit
 * never calls `beforeTool`, so the monitor records exactly one step per classification, numbered in order.
 */
function stepsOf(turns: readonly Turn[]): AuditStep[] {
  const steps: AuditStep[] = [];
  for (const turn of turns) {
    for (const classification of turn.classifications) {
      steps.push({
        index: steps.length + 1,
        message: turn.message,
        state: classification.state,
        method: classification.method,
        confidence: classification.confidence,
        evidence: evidenceOf(classification),
        excerpt: turn.excerpt,
        ...(turn.withheld ? { withheld: true as const } : {}),
      });
    }
  }
  return steps;
}

function violationsOf(report: SessionReport, steps: readonly AuditStep[]): AuditViolation[] {
  const last = steps.at(-1)?.index ?? 0;
  const messageOf = new Map(steps.map((step) => [step.index, step.message]));
  return report.violations.map((violation) => {
    // Closing the trace has no state of its own: such a violation is pinned to the last step (0 when none).
    const step = violation.step ?? last;
    const messageIndex = messageOf.get(step);
    return {
      constraint: violation.constraint,
      type: violation.type,
      severity: violation.severity,
      step,
      atClose: violation.state === undefined,
      ...(messageIndex === undefined ? {} : { messageIndex }),
      position: violation.position,
      message: violation.message,
      ...(violation.withheld ? { withheld: true as const } : {}),
    };
  });
}

function evidenceOf({ evidence }: ClassificationResult): string {
  switch (evidence.kind) {
    case 'tool_call':
      return `tool ${evidence.toolName}`;
    case 'pattern':
      return `pattern /${evidence.pattern}/`;
    case 'exemplar':
      return `exemplar "${excerptOf(evidence.exemplar, 60)}" ${evidence.similarity.toFixed(2)}`;
    case 'fallback':
      return `fallback: ${evidence.reason}`;
  }
}

function excerptOf(text: string, length = EXCERPT_LENGTH): string {
  const head = text.slice(0, length * 2).replace(/\s+/g, ' ').trim();
  return head.length > length ? `${head.slice(0, length - 1)}…` : head;
}
