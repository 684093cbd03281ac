import { scheduleNotes, templateVariables } from '../intervene/index.js';
import type { WorkflowSnapshot } from './snapshot.js';
import type { Workflow } from './workflow.js';

/**
 * The snapshot with the reasons of refused tool calls queued as notes for the session's next call (see
 * `scheduleNotes`), for a host whose model never reads a tool result for them. A reason that guidance already
 * pending will render is left out, so the model reads it once: a workflow refusal schedules its guidance with the
 * reason as `{details}`, which the built-in template shows (a workflow's own template may not, and then the note
 * says it). Returns `snapshot` itself when nothing is added.
 */
export function noteRefusals(workflow: Workflow, snapshot: WorkflowSnapshot, reasons: readonly string[]): WorkflowSnapshot {
  const { pending } = snapshot.interventions;
  const shown = (reason: string) =>
    pending.some((entry) => entry.reason === 'refusal' && entry.variables.details === reason && showsDetails(workflow, entry.name));
  const notes = reasons.filter((reason) => !shown(reason));
  const interventions = notes.length === 0 ? snapshot.interventions : scheduleNotes(snapshot.interventions, notes);
  return interventions === snapshot.interventions ? snapshot : { ...snapshot, interventions };
}

/** Whether the guidance named `name` renders `{details}`: the built-in refusal guidance does. */
function showsDetails(workflow: Workflow, name: string): boolean {
  const definition = workflow.intervention(name);
  return definition === undefined || templateVariables(definition.template).includes('details');
}
