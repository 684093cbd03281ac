import type { AuditIntervention, AuditRefusal, AuditViolation, SessionAudit } from './types.js';

/** How every report names a place in a transcript: the 0-based index of its message, `messages[4]`. */
export function messageLabel(message: number | undefined): string {
  return message === undefined ? 'messages[?]' : `messages[${message}]`;
}

/** Where a violation is shown: its message, or the end of the conversation for one found there. */
export function violationLabel(violation: AuditViolation): string {
  return violation.atClose ? 'at the end' : messageLabel(violation.message);
}

/**
 * The step each violation and deviation belongs to, by index into `session.steps`: the first step of its message that
 * entered its state (a message with several tool calls has several steps). Violations found at the end have none.
 */
export function stepMarks(session: SessionAudit): { violations: Map<number, AuditViolation[]>; deviated: Set<number> } {
  const stepOf = (message: number | undefined, state: string | undefined) => session.steps.findIndex((step) => step.message === message && step.state === state);
  const violations = new Map<number, AuditViolation[]>();
  for (const violation of session.violations) {
    if (violation.atClose) continue;
    const index = stepOf(violation.message, violation.state);
    if (index >= 0) violations.set(index, [...(violations.get(index) ?? []), violation]);
  }
  const deviated = new Set(session.deviations.map((deviation) => stepOf(deviation.message, deviation.to)).filter((index) => index >= 0));
  return { violations, deviated };
}

/** One thing the live monitor would have done: at `message`, `subject` (when there is one) then `phrase`. */
export interface LiveAction {
  message: number;
  /** The refused tool or the applied intervention, which reports set as code. */
  subject?: string;
  /** `would have been refused before it ran (...)`, `the model call that wrote it would have been blocked (...)`. */
  phrase: string;
}

/**
 * What the live monitor would have done, in message order: interventions on the model call that wrote a message come
 * before refusals of that message's tool calls, which it made afterwards.
 */
export function liveActions(session: Pick<SessionAudit, 'refusals' | 'interventions' | 'steps'>): LiveAction[] {
  const withheld = new Set(session.steps.flatMap((step) => (step.withheld ? [step.message] : [])));
  const actions = [
    ...session.interventions.map((intervention) => ({ order: 0, action: interventionAction(intervention) })),
    ...session.refusals.map((refusal) => ({ order: 1, action: refusalAction(refusal) })),
    ...[...withheld].map((message) => ({ order: 2, action: { message, subject: 'the answer', phrase: 'would have been withheld before delivery (the user gets the replacement)' } })),
  ];
  return actions.sort((a, b) => a.action.message - b.action.message || a.order - b.order).map(({ action }) => action);
}

function refusalAction(refusal: AuditRefusal): LiveAction {
  const rules = `${refusal.constraints.join(' and ')}, critical`;
  const why =
    refusal.constraints.length === 0
      ? 'a move the workflow does not list, and on_invalid_transition is block'
      : refusal.unseen
        ? `${rules}: the state it needs was entered by another call of the same message, whose result the model had not seen`
        : rules;
  return { message: refusal.message, subject: refusal.tool, phrase: `would have been refused before it ran (${why})` };
}

function interventionAction(intervention: AuditIntervention): LiveAction {
  if (intervention.blocked) return { message: intervention.message, phrase: `the model call that wrote it would have been blocked (${intervention.name})` };
  return { message: intervention.message, subject: intervention.name, phrase: `would have been applied before the model wrote it (${intervention.strategy})` };
}
