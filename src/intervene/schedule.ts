import type { InterventionDefinition, Severity } from '../workflow/types.js';
import type { RenderedIntervention } from './apply.js';
import { escalate } from './strategy.js';
import { renderTemplate, type TemplateVariables } from './template.js';

/** An intervention waiting for the session's next model call. Plain JSON. */
export interface PendingIntervention {
  /** Name of the workflow's intervention, or `constraint:<name>` for built-in guidance. */
  name: string;
  /**
   * Why it was scheduled. `note`: the reasons of refused tool calls, for a host whose model reads no tool result for
   * them (see {@link scheduleNotes}); rendered as written, never counted, escalated or blocking.
   */
  reason: 'violation' | 'refusal' | 'deviation' | 'doomed' | 'note';
  constraint?: string;
  severity?: Severity;
  /** Refuse the next call regardless of the intervention's strategy (critical severity, `block` deviation policy). */
  block: boolean;
  /**
   * Scheduled by a response withheld before delivery: the withholding was the block, so the guidance never blocks the
   * next call by itself (a `block:` template goes into the system prompt) until it escalates there.
   */
  withheld?: true;
  variables: TemplateVariables;
  /** The texts of a `note`, oldest first. */
  notes?: string[];
}

/** Per-session intervention bookkeeping. Plain JSON, part of the session snapshot. */
export interface InterventionState {
  pending: PendingIntervention[];
  /** How often each intervention has been applied in this session, by name. */
  applications: Record<string, number>;
}

/** What the next model call must do: apply `apply` to its request, or refuse it with `block`. */
export interface InterventionPlan {
  state: InterventionState;
  apply: RenderedIntervention[];
  block?: RenderedIntervention;
}

/** The guidance used when a constraint names no intervention of its own. */
export const DEFAULT_GUIDANCE_TEMPLATE =
  "Workflow rule '{constraint}' was broken: {details} Continue from '{current_state}'; the workflow allows next: {valid_next_states}.";

/** The guidance used for a move the workflow does not allow, when its deviation policy names no intervention. */
export const DEFAULT_DEVIATION_TEMPLATE =
  "The workflow does not go from '{previous_state}' to '{attempted_state}'. From '{current_state}' it allows: {valid_next_states}.";

/** The guidance after a call was refused before it ran, when the constraint names no intervention. */
export const DEFAULT_REFUSAL_TEMPLATE =
  "Your call was refused before it ran: {details} From '{current_state}' the workflow allows: {valid_next_states}.";

/** The guidance used when a constraint can no longer be satisfied along the workflow's transitions. */
export const DEFAULT_DOOMED_TEMPLATE = "Workflow rule '{constraint}' is at risk: {details}";

/** The same default applications before escalation as a workflow file's interventions. */
export const DEFAULT_MAX_APPLICATIONS = 3;

/** The name of the pending entry that carries the notes of refused calls (no workflow intervention is looked up by it). */
export const REFUSAL_NOTES = 'panoptes:refused-calls';

/** Most notes waiting for one session's next call: past it, the oldest go. */
export const MAX_PENDING_NOTES = 8;

/** Longest note kept, in characters: a longer one (a guard's own reason) is cut there, marked with an ellipsis. */
export const MAX_NOTE_CHARS = 2000;

/** An empty intervention state for a new session. */
export function initialInterventionState(): InterventionState {
  return { pending: [], applications: {} };
}

/**
 * Queues an intervention for the next call. One pending entry per name: a newer one replaces the older, whose
 * details are stale, and a block is never downgraded by a later non-blocking entry.
 */
export function scheduleIntervention(state: InterventionState, next: PendingIntervention): InterventionState {
  const previous = state.pending.find((pending) => pending.name === next.name);
  const merged = previous?.block ? { ...next, block: true } : next;
  return { ...state, pending: [...state.pending.filter((pending) => pending.name !== next.name), merged] };
}

/**
 * Queues `texts` (the reasons of refused tool calls, written for the model) for the next call, in one entry, in the
 * system prompt. Bounded: a text already waiting is not added again, each is cut at {@link MAX_NOTE_CHARS}, and past
 * {@link MAX_PENDING_NOTES} the oldest go. Notes are never counted or escalated: a session refused many times over
 * gets each reason once, never a block for having been told.
 */
export function scheduleNotes(state: InterventionState, texts: readonly string[]): InterventionState {
  const previous = state.pending.find((pending) => pending.name === REFUSAL_NOTES && pending.reason === 'note');
  const notes = [...(previous?.notes ?? [])];
  for (const text of texts) {
    const note = text.length > MAX_NOTE_CHARS ? `${text.slice(0, MAX_NOTE_CHARS - 1)}…` : text;
    if (note.trim() !== '' && !notes.includes(note)) notes.push(note);
  }
  if (notes.length === (previous?.notes?.length ?? 0)) return state;
  const entry: PendingIntervention = { name: REFUSAL_NOTES, reason: 'note', block: false, variables: {}, notes: notes.slice(-MAX_PENDING_NOTES) };
  return { ...state, pending: [...state.pending.filter((pending) => pending !== previous), entry] };
}

/**
 * Takes every pending intervention, renders it, counts the application and escalates past `maxApplications`.
 * Pure: returns the new state with the queue emptied.
 * @param resolve looks up a workflow intervention by name; unknown names get the built-in guidance for their reason.
 */
export function planInterventions(
  state: InterventionState,
  resolve: (name: string) => InterventionDefinition | undefined,
): InterventionPlan {
  if (state.pending.length === 0) return { state, apply: [] };
  const applications = { ...state.applications };
  const apply: RenderedIntervention[] = [];
  let block: RenderedIntervention | undefined;
  for (const pending of state.pending) {
    if (pending.reason === 'note') {
      if (pending.notes?.length) apply.push({ name: pending.name, strategy: 'system-prompt-append', text: pending.notes.join('\n') });
      continue;
    }
    const definition = resolve(pending.name) ?? builtInGuidance(pending);
    const count = Object.hasOwn(applications, pending.name) ? applications[pending.name]! : 0;
    applications[pending.name] = count + 1;
    const base = pending.withheld && definition.strategy === 'hard-block' ? 'system-prompt-append' : definition.strategy;
    const strategy = pending.block ? 'hard-block' : escalate(base, Math.floor(count / definition.maxApplications));
    const rendered: RenderedIntervention = { name: pending.name, strategy, text: renderTemplate(definition.template, pending.variables) };
    // A registered strategy's options are its own: an escalated intervention leaves them behind.
    if (definition.options !== undefined && strategy === definition.strategy) rendered.options = definition.options;
    if (strategy === 'hard-block') block ??= rendered;
    else apply.push(rendered);
  }
  return { state: { pending: [], applications }, apply, ...(block ? { block } : {}) };
}

const BUILT_IN_TEMPLATES: Record<PendingIntervention['reason'], string> = {
  violation: DEFAULT_GUIDANCE_TEMPLATE,
  refusal: DEFAULT_REFUSAL_TEMPLATE,
  deviation: DEFAULT_DEVIATION_TEMPLATE,
  doomed: DEFAULT_DOOMED_TEMPLATE,
  note: '{details}',
};

function builtInGuidance(pending: PendingIntervention): InterventionDefinition {
  const template = BUILT_IN_TEMPLATES[pending.reason];
  return { name: pending.name, template, strategy: 'system-prompt-append', maxApplications: DEFAULT_MAX_APPLICATIONS };
}
