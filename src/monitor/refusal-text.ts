import { describeRule, type EnterPreview, type Workflow } from '../workflow/index.js';

/**
 * The text a model reads when its tool call is refused: what rule it would break and where it can go instead.
 * Written for the model, which knows nothing of sessions or monitors; the developer-facing record is separate.
 */
export function refusalText(workflow: Workflow, currentState: string, call: { toolName: string; state: string }, preview: EnterPreview): string {
  const critical = preview.violations.filter((violation) => violation.severity === 'critical');
  const rules = critical.map(({ constraint }) => {
    const definition = workflow.definition.constraints.find((candidate) => candidate.name === constraint)!;
    return `'${constraint}' (${describeRule(definition)})`;
  });
  // A rule kept only by another call of the same response: the model must see that call's result first.
  const unseen = critical.some((violation) => violation.unseen)
    ? ` A call made in the same response does not count for it, as its result was not seen yet: call ${call.toolName} again once it is.`
    : '';
  // A grounded rule: the user's yes was to other details; say which, so the agent restates them and asks again.
  const unstated = [...new Set(critical.flatMap((violation) => violation.unstated ?? []))];
  const grounded = unstated.length > 0 ? ` The user's yes answered a message that did not state ${unstated.join(', ')} of this call: restate the call with them and ask again.` : '';
  const why =
    rules.length > 0
      ? `It would break the rule${rules.length > 1 ? 's' : ''} ${rules.join(' and ')}.${grounded}${unseen}`
      : `The procedure does not allow '${call.state}' after '${currentState}'.`;
  const next = workflow.successors(currentState).filter((state) => state !== call.state);
  const options = next.length > 0 ? ` Allowed next: ${next.join(', ')}.` : '';
  return `The call to ${call.toolName} was refused and did not run. ${why}${options}`;
}
