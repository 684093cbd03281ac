import type { FactStore } from '../facts/index.js';
import type { AskableDeclaration, Rulebase, Value } from '../rules/index.js';
import { unstatedArguments } from '../grounding/index.js';
import type { Blocker } from './result.js';
import { isPlainYes } from '../grounding/index.js';

type Ask = Blocker & { kind: 'ask' };

/** Whether an askable is a grounded confirmation: bound to a call and naming the arguments the user must have seen. */
export function isGrounded(declaration: AskableDeclaration | undefined): declaration is AskableDeclaration & { confirms: { params: string[] } } {
  return declaration?.confirms?.params !== undefined;
}

/** What {@link groundFromExchange} did: whether it recorded the user's yes, and the blockers, annotated. */
export interface Grounding {
  recorded: boolean;
  blockers: Blocker[];
}

/**
 * For a check blocked on grounded confirmations of this call and nothing else: when the user's last message is a
 * plain yes, not yet spent, to a message that stated every named argument of the call, the yes is recorded for this
 * exact call and the exchange marked spent (a yes counts once). Otherwise each such blocker says which named
 * arguments the message the user answered left out (`unstated`), or that the yes was spent on another call.
 */
export function groundFromExchange(rulebase: Rulebase, facts: FactStore, args: Readonly<Record<string, unknown>>, blockers: Blocker[]): Grounding {
  const unchanged = { recorded: false, blockers };
  const asks = blockers.filter((blocker): blocker is Ask => blocker.kind === 'ask' && blocker.call !== undefined && isGrounded(rulebase.askables.get(blocker.predicate)));
  if (asks.length === 0) return unchanged;
  const exchange = facts.exchange();
  const decisive = blockers.filter((blocker) => !(blocker.kind === 'condition' && blocker.decisive === false));
  // Anything else in the way (a failed condition, a context to bind): the call would not run, so no yes is spent on it.
  if (exchange === undefined || decisive.some((blocker) => !asks.includes(blocker as Ask))) return unchanged;
  if (!isPlainYes(exchange.answer)) return unchanged;
  const unstated = new Map(asks.map((ask) => [ask, unstatedArguments(rulebase.askables.get(ask.predicate)!.confirms!.params!, args, exchange.asked)]));
  const refs = asks.map((ask) => ask.args.at(-1) as string);
  if (exchange.usedBy === undefined && [...unstated.values()].every((names) => names.length === 0)) {
    for (const ask of asks) facts.assert(ask.predicate, ask.args as Value[], { source: 'user' });
    facts.useExchange(exchange.id, refs[0]!);
    return { recorded: true, blockers: [] };
  }
  return {
    recorded: false,
    blockers: blockers.map((blocker) => {
      const names = unstated.get(blocker as Ask);
      if (names === undefined) return blocker;
      if (exchange.usedBy !== undefined) return { ...blocker, spent: true as const };
      return names.length > 0 ? { ...blocker, unstated: names } : blocker;
    }),
  };
}

/**
 * Why the model's report of a yes to a grounded confirmation does not count, or `undefined` when it does: the user's
 * last message must be a plain yes, not yet spent, to a message that stated every named argument of the call.
 */
export function ungroundedReason(declaration: AskableDeclaration & { confirms: { params: string[] } }, facts: FactStore, args: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const exchange = facts.exchange();
  if (args === undefined) return `call ${declaration.confirms.tool} first: its refusal gives the call to confirm`;
  if (exchange === undefined) return 'the conversation is not known here (this host passes no messages); the yes must come through the host\'s approval';
  if (!isPlainYes(exchange.answer)) return 'the user\'s last message is not an explicit yes';
  if (exchange.usedBy !== undefined) return 'the user\'s last yes already confirmed a call; ask again for this one';
  const unstated = unstatedArguments(declaration.confirms.params, args, exchange.asked);
  return unstated.length > 0 ? `the message the user answered did not state ${unstated.join(', ')}; restate the call with them and ask again` : undefined;
}
