/**
 * The text the model reads when the proxy's rules refuse a call. The sentinel's own text assumes the agent can call
 * the policy's tools and that data tools are fetched for it; behind a proxy neither holds, so the blockers the model
 * must act on differently are worded for the proxy: read this data yourself, ask the user and call again.
 * @module
 */
import { blockerText, type Blocker, type CheckResult, type PolicyToolNames } from '../../guards/index.js';
import { formatValue } from '../../facts/index.js';
import type { AskableDeclaration, Value } from '../../rules/index.js';

/** The reason a data tool call failed when the proxy was asked to make it: it never can. */
export const CANNOT_FETCH = 'the proxy cannot call data tools itself';

/** Whether the sentinel's result says its rules wait for a data tool the proxy could not call. */
function isUnread(blocker: Blocker): blocker is Extract<Blocker, { kind: 'fetch-failed' }> {
  return blocker.kind === 'fetch-failed' && blocker.reason.includes(CANNOT_FETCH);
}

/**
 * The model's text for a refused check: reads it must make first and questions it must put to the user, worded for a
 * proxy, then whatever else the sentinel said. Blockers of neither kind keep the sentinel's own words.
 */
export function proxyRefusalText(check: CheckResult, names: PolicyToolNames, askables: ReadonlyMap<string, AskableDeclaration> = new Map()): string {
  const actions: string[] = [];
  const rest: Blocker[] = [];
  for (const blocker of check.blockers) {
    if (isUnread(blocker)) actions.push(`Call ${blocker.tool}(${argsText(blocker.args)}) first: the policy decides this call from its result.`);
    else if (blocker.kind === 'ask' && askables.get(blocker.predicate)?.confirms?.params !== undefined) {
      actions.push(groundedAskText(blocker, askables.get(blocker.predicate)!.confirms!.params!));
    } else if (blocker.kind === 'ask') {
      const call = blocker.call !== undefined && !blocker.question.includes(blocker.call) ? ` (the call: ${blocker.call})` : '';
      actions.push(`Ask the user: "${blocker.question}"${call}; if they answer with a plain yes, make the same call again (anything else is not a yes).`);
    } else rest.push(blocker);
  }
  if (actions.length === 0) return check.text;
  const lines = [`The call to ${check.tool} was refused: it is not allowed yet. To proceed:`, ...actions.map((action) => `- ${action}`)];
  const decisive = rest.filter((blocker) => !(blocker.kind === 'condition' && blocker.decisive === false));
  if (decisive.length > 0) lines.push(blockerText('Also:', decisive, names));
  return lines.join('\n');
}

/**
 * The action for a grounded confirmation: the user's yes counts only when the message they answered stated the named
 * arguments, so the model restates them; when a yes did not count, why (what the message left out, or that it was spent).
 */
function groundedAskText(blocker: Extract<Blocker, { kind: 'ask' }>, params: readonly string[]): string {
  const why = blocker.spent
    ? "The user's last yes already confirmed a call; a yes counts once. "
    : blocker.unstated !== undefined
      ? `The user's yes answered a message that did not state ${blocker.unstated.join(', ')} of this call. `
      : '';
  const call = blocker.call !== undefined && !blocker.question.includes(blocker.call) ? ` (the call: ${blocker.call})` : '';
  return `${why}Restate the call to the user with its ${params.join(', ')} and ask: "${blocker.question}"${call}; if they answer with a plain yes, make the same call again (a yes counts only for the values your message stated).`;
}

function argsText(args: Record<string, Value>): string {
  return Object.entries(args)
    .map(([name, value]) => `${name}: ${formatValue(value)}`)
    .join(', ');
}
