import type { EnterPreview, Workflow } from '../workflow/index.js';

/**
 * The text a model reads when its tool call is refused: what rule it would break and where it can go instead.
 * Written for the model, which knows nothing of sessions or monitors; the developer-facing record is separate.
 */
export function refusalText(workflow: Workflow, currentState: string, call: { toolName: string; state: string }, preview: EnterPreview): string {
  const critical = preview.violations.filter((violation) => violation.severity === 'critical');
  const why =
    critical.length > 0
      ? critical.map((violation) => violation.message).join(' ')
      : `The procedure does not allow '${call.state}' after '${currentState}'.`;
  const next = workflow.successors(currentState).filter((state) => state !== call.state);
  const options = next.length > 0 ? ` Allowed next: ${next.join(', ')}.` : '';
  return `The call to ${call.toolName} was refused and did not run. ${why}${options}`;
}
