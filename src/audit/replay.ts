import type { ClassificationResult } from '../classify/index.js';
import type { ChatMessage } from '../messages/index.js';
import type { Monitor } from '../monitor/index.js';
import { createSnapshot, verdictsOf, type DeviationRecord, type EnterPreview, type ViolationRecord, type Workflow } from '../workflow/index.js';
import type { AuditIntervention, AuditLoop, AuditRefusal, AuditStep, AuditViolation, SessionAudit, Transcript } from './types.js';

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
 * What `beforeTool` would have said is read from `afterModel`'s previews instead: a call it would have refused is
 * reported as a refusal, and the next model call gets the guidance the refusal schedules, not the block its violation
 * causes in the replay (live, the call never ran, so that violation never happened).
 *
 * Every place is named by the index of its message in the transcript; the monitor's trace positions, which collapse
 * repeats and count no user or tool message, are translated in the violations' texts.
 * @param key The monitor's session id; unique per replay, since two files may hold sessions with the same id.
 */
export async function replayTranscript(monitor: Monitor, transcript: Transcript, key: string): Promise<SessionAudit> {
  // `id`, `trace`, `steps`, `violations` and `verdicts` come first, so the JSON reads in that order.
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
    return { id: transcript.id, trace: snapshot.trace, steps: [], violations: [], verdicts: verdictsOf(snapshot), ...extras, deviations: [], refusals: [], interventions: [], loops: [], note };
  }

  const turns: Turn[] = [];
  const refusals: AuditRefusal[] = [];
  const interventions: AuditIntervention[] = [];
  const loops: AuditLoop[] = [];
  // The whole trace and every deviation are collected from the monitor's events: its session keeps only the last
  // `historyLimit` of them, since a session that kept everything would copy it all on every step (a 100,000-message
  // transcript took 18 s that way; now time is linear in its length).
  const trace = [createSnapshot(monitor.workflow, { at: 0 }).state];
  // The message each trace position was entered at; the initial state was entered at none.
  const enteredAt: Array<number | undefined> = [undefined];
  const deviations: DeviationRecord[] = [];
  let current = 0;
  // The assistant message whose states enter now: this one in `afterModel`, the previous one when its tool calls'
  // states enter at the next model call or at the end.
  let entering = 0;
  const listeners = [
    monitor.on('loop', ({ sessionId, report }) => {
      // The detector's own message names the replay's internal session key and counts monitor steps; the finding's
      // detail is all a reader needs beside the message index.
      if (sessionId === key) loops.push({ kind: report.kind, action: report.action, message: current, detail: report.detail });
    }),
    monitor.on('state-change', ({ sessionId, to }) => {
      if (sessionId !== key) return;
      trace.push(to);
      enteredAt.push(entering);
    }),
    monitor.on('deviation', ({ sessionId, deviation }) => {
      if (sessionId === key) deviations.push(deviation);
    }),
  ];
  // The guidance the last message's refused calls would have scheduled for the next model call, by name.
  let guidance = new Map<string, AuditIntervention>();
  // One growing array, not a slice per call: a long session stays linear.
  const soFar: ChatMessage[] = [];
  let lastAssistant = 0;
  for (const [index, message] of transcript.messages.entries()) {
    current = index;
    if (message.role === 'assistant') {
      entering = lastAssistant;
      const before = await monitor.beforeModel(key, { messages: soFar });
      if (before.action === 'block' && guidance.has(before.intervention.name)) {
        for (const instead of guidance.values()) interventions.push({ ...instead, message: index });
      } else if (before.action === 'block') {
        interventions.push({ message: index, name: before.intervention.name, strategy: before.intervention.strategy, blocked: true });
      } else {
        for (const { name, strategy } of before.interventions) interventions.push({ message: index, name, strategy, blocked: false });
      }
      entering = index;
      lastAssistant = index;
      // Classified as a live host that can withhold does by default: an answer that breaks a critical constraint (or
      // one whose intervention is a `block:`) is marked withheld before delivery, and the replay goes on from the
      // state the user saw, with the guidance the live monitor would have given.
      const after = await monitor.afterModel(key, { content: message.content, toolCalls: message.toolCalls ?? [] }, WITHHOLD);
      turns.push({ message: index, excerpt: excerptOf(message.content), classifications: after.classifications, ...(after.withheld ? { withheld: true as const } : {}) });
      guidance = new Map();
      for (const { toolName, state, preview } of after.toolPreviews) {
        if (!preview.refuse) continue;
        const refusal = refusalOf(index, toolName, state, preview);
        refusals.push(refusal);
        if (!refusal.unseen) for (const scheduled of refusalGuidance(monitor.workflow, refusal)) guidance.set(scheduled.name, scheduled);
      }
    }
    soFar.push(message);
  }
  entering = lastAssistant;
  const report = await monitor.endSession(key);
  for (const stop of listeners) stop();
  const steps = stepsOf(turns);
  // The monitor numbers its steps from 1, one per classification (its report keeps only the last `historyLimit`).
  const stepMessage = (step: number | undefined) => (step === undefined ? undefined : steps[step - 1]?.message);
  const lastMessage = transcript.messages.length - 1;
  return {
    id: transcript.id,
    trace,
    steps,
    violations: report.violations.map((violation) => violationOf(violation, stepMessage, enteredAt, lastMessage)),
    verdicts: report.verdicts,
    ...extras,
    deviations: deviations.map(({ from, to, step }) => {
      const message = stepMessage(step);
      return { from, to, ...(message === undefined ? {} : { message }) };
    }),
    refusals,
    interventions,
    loops,
  };
}

/** A call `beforeTool` would have refused, from its preview: the critical constraints it breaks, or none (deviation). */
function refusalOf(message: number, tool: string, state: string, preview: EnterPreview): AuditRefusal {
  const critical = preview.violations.filter((violation) => violation.severity === 'critical');
  const unseen = critical.length > 0 && critical.every((violation) => violation.unseen);
  return { message, tool, state, constraints: critical.map((violation) => violation.constraint), ...(unseen ? { unseen: true as const } : {}) };
}

/**
 * What a live refusal schedules for the next model call (as the workflow engine does): each constraint's
 * intervention, or the deviation policy's, never as a block; the message index is filled in where it is applied.
 */
function refusalGuidance(workflow: Workflow, refusal: AuditRefusal): AuditIntervention[] {
  const names =
    refusal.constraints.length === 0
      ? [workflow.definition.onDeviation.intervention ?? 'deviation']
      : refusal.constraints.map((name) => workflow.definition.constraints.find((constraint) => constraint.name === name)?.intervention ?? `constraint:${name}`);
  return names.map((name) => ({ message: refusal.message, name, strategy: workflow.intervention(name)?.strategy ?? 'system-prompt-append', blocked: false }));
}

/**
 * The steps the monitor recorded, with the transcript message each came from and the classifier's reason. The audit
 * never calls `beforeTool`, so the monitor records exactly one step per classification, in order.
 */
function stepsOf(turns: readonly Turn[]): AuditStep[] {
  const steps: AuditStep[] = [];
  for (const turn of turns) {
    for (const classification of turn.classifications) {
      steps.push({
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

function violationOf(violation: ViolationRecord, stepMessage: (step: number | undefined) => number | undefined, enteredAt: ReadonlyArray<number | undefined>, lastMessage: number): AuditViolation {
  const atClose = violation.state === undefined;
  const message = (atClose ? undefined : stepMessage(violation.step)) ?? lastMessage;
  return {
    constraint: violation.constraint,
    type: violation.type,
    severity: violation.severity,
    message,
    ...(atClose ? {} : { state: violation.state }),
    atClose,
    text: inMessageNumbers(violation.message, enteredAt),
    ...(violation.withheld ? { withheld: true as const } : {}),
  };
}

/**
 * A violation's text with the trace positions the temporal engine speaks of turned into message indexes
 * (`at trace position 3` becomes `at messages[4]`). The end of the conversation is named by the violation itself.
 */
function inMessageNumbers(text: string, enteredAt: ReadonlyArray<number | undefined>): string {
  const place = (position: string) => {
    const message = enteredAt[Number(position) - 1];
    return message === undefined ? 'the start' : `messages[${message}]`;
  };
  return text
    .replace(/^The session ended after trace position \d+/, 'The session ended')
    .replace(/at trace position (\d+)/g, (_, position: string) => `at ${place(position)}`)
    .replace(/trace position (\d+)/g, (_, position: string) => place(position));
}

function evidenceOf({ evidence }: ClassificationResult): string {
  switch (evidence.kind) {
    case 'tool_call':
      return `tool ${evidence.toolName}`;
    case 'pattern':
      return `pattern /${evidence.pattern}/`;
    case 'exemplar':
      return `exemplar "${excerptOf(evidence.exemplar, 60)}" ${evidence.similarity.toFixed(2)}`;
    case 'tier':
      return `tier ${evidence.tier}`;
    case 'fallback':
      return `fallback: ${evidence.reason}`;
  }
}

function excerptOf(text: string, length = EXCERPT_LENGTH): string {
  const head = text.slice(0, length * 2).replace(/\s+/g, ' ').trim();
  return head.length > length ? `${head.slice(0, length - 1)}…` : head;
}
