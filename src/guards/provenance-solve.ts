import { andThen } from '../async/index.js';
import { canonicalJson, type FactStore, type ProvenanceLog } from '../facts/index.js';
import { hashString } from '../hash/cyrb53.js';
import type { Rulebase, Value } from '../rules/index.js';
import { PROVENANCE_PREDICATES } from '../rules/provenance-builtins.js';
import type { CLiteral } from './compile.js';
import { runJudge, type ConditionJudge, type ConditionVerdict } from './judge.js';
import type { ProofNode } from './proof-tree.js';
import { describeLink, fromUntrusted, toolsSeenIn, untrustedInContext, userGave, type ProvenanceLink, type RelationVerdict } from './provenance-relations.js';
import type { Blocker } from './result.js';
import type { Continuation, Step } from './step.js';
import { UNBOUND_CONTEXT, type Environment } from './terms.js';

/** The judge of one check and the verdicts it gave (both proof passes of a refusal ask it once). */
export interface ProvenanceContext {
  judge: ConditionJudge | undefined;
  judgeTimeoutMs: number;
  verdicts: Map<string, ConditionVerdict | Promise<ConditionVerdict>>;
}

/** What a provenance relation needs of the search that meets it. */
export interface ProvenanceHooks {
  env: Environment;
  context: { store: FactStore; provenance: ProvenanceContext; compiled: { rulebase: Rulebase } };
  call: { tool: string; args: Record<string, unknown> } | undefined;
  explain: boolean;
  negated: boolean;
  succeed(literal: CLiteral, base: number, parent: ProofNode, node: ProofNode, k: Continuation): Step;
  fail(literal: CLiteral, base: number, facts: string[], reason?: string, chain?: readonly ProvenanceLink[]): void;
  assume(ask: Blocker & { kind: 'ask' }, parent: ProofNode, literal: CLiteral, base: number, k: Continuation): Step;
}

/** Whether a built-in is one of the provenance relations (or `judged`). */
export function isProvenanceRelation(predicate: string): boolean {
  return Object.hasOwn(PROVENANCE_PREDICATES, predicate);
}

/**
 * Proves `from_untrusted(V)`, `user_gave(V)`, `in_context_untrusted`, `seen_in(V, Tool)` against the session's
 * provenance log, and `judged(Name)` with the application's judge. A relation that holds leaves a proof node that
 * names its chain (which argument, which value, which result); one that fails records why.
 */
export function solveProvenanceRelation(hooks: ProvenanceHooks, literal: CLiteral & { kind: 'builtin' }, base: number, parent: ProofNode, k: Continuation): Step {
  const { predicate } = literal;
  if (predicate === 'judged') return solveJudged(hooks, literal, base, parent, k);
  const log = hooks.context.store.provenance;
  let verdict: RelationVerdict;
  if (predicate === 'in_context_untrusted') {
    verdict = untrustedInContext(log);
  } else if (predicate === 'sink_from_untrusted') {
    verdict = sinkFromUntrusted(hooks, log);
  } else {
    const value = hooks.env.value(literal.args[0]!, base);
    if (value === UNBOUND_CONTEXT) return false;
    if (value === undefined) {
      hooks.fail(literal, base, [], 'its value is not bound');
      return false;
    }
    if (predicate === 'seen_in') return solveSeenIn(hooks, literal, base, parent, value, k);
    verdict = predicate === 'from_untrusted' ? fromUntrusted(log, value, hooks.call?.args) : userGave(log, value);
  }
  const texts = verdict.links.slice(0, 3).map((link) => describeLink(link, predicate));
  if (!verdict.holds) {
    hooks.fail(literal, base, texts, undefined, verdict.links);
    return false;
  }
  return hooks.succeed(literal, base, parent, provenanceNode(literal, base, texts, verdict.links), k);
}

/**
 * Every sink argument of the guarded call that is from_untrusted, each with its chain. An `egress` argument is
 * content sent out (a message body, a page): it sends its reader only where the links and addresses in it point, so
 * only those are looked up; a sentence copied from a source is no destination.
 */
function sinkFromUntrusted(hooks: ProvenanceHooks, log: ProvenanceLog): RelationVerdict {
  const links: ProvenanceLink[] = [];
  if (!hooks.call) return { holds: false, links };
  for (const sink of hooks.context.compiled.rulebase.sinks.get(hooks.call.tool) ?? []) {
    const phrases = sink.sinkKind !== 'egress';
    for (const param of sink.params) {
      const value = hooks.call.args[param];
      if (value === undefined || value === null) continue;
      for (const link of fromUntrusted(log, value as Value, hooks.call.args, { phrases }).links) links.push({ ...link, argument: param });
    }
  }
  return { holds: links.length > 0, links };
}

function solveSeenIn(hooks: ProvenanceHooks, literal: CLiteral, base: number, parent: ProofNode, value: Value, k: Continuation): Step {
  const tools = toolsSeenIn(hooks.context.store.provenance, value);
  if (tools.size === 0) {
    hooks.fail(literal, base, [], 'it occurs in no tool result');
    return false;
  }
  const toolTerm = (literal as CLiteral & { kind: 'builtin' }).args[1]!;
  const attempt = (entries: Array<[string, ProvenanceLink]>, index: number): Step => {
    if (index >= entries.length) return false;
    const [tool, link] = entries[index]!;
    const mark = hooks.env.mark();
    if (!hooks.env.unifyWithValue(toolTerm, base, tool)) {
      hooks.env.undo(mark);
      return attempt(entries, index + 1);
    }
    const step = hooks.succeed(literal, base, parent, provenanceNode(literal, base, [describeLink(link, 'seen_in')], [link]), k);
    return andThen(step, (stop) => {
      hooks.env.undo(mark);
      return stop ? true : attempt(entries, index + 1);
    });
  };
  return attempt([...tools], 0);
}

/**
 * `judged(Name)`: the user's approval of this exact call (recorded through the host) answers it; otherwise the judge
 * does: `yes` holds, `no` fails (a refusal), `unknown` (and no judge) holds as an assumption the user is asked about.
 */
function solveJudged(hooks: ProvenanceHooks, literal: CLiteral & { kind: 'builtin' }, base: number, parent: ProofNode, k: Continuation): Step {
  const name = hooks.env.value(literal.args[0]!, base);
  if (name === UNBOUND_CONTEXT || name === undefined || hooks.call === undefined) {
    hooks.fail(literal, base, [], hooks.call === undefined ? 'only a guard has a call to judge' : 'its name is not bound');
    return false;
  }
  const { tool, args } = hooks.call;
  const ref = `${tool}#${hashString(canonicalJson(args as Value)).toString(36)}`;
  const store = hooks.context.store;
  if (store.match('judged', [name, ref]).length > 0) return hooks.succeed(literal, base, parent, { by: 'askable', literal, base, source: 'user', children: [] }, k);
  const { provenance } = hooks.context;
  const key = `${canonicalJson(name)}\u0000${ref}`;
  let verdict = provenance.verdicts.get(key);
  if (verdict === undefined) {
    verdict = runJudge(provenance.judge, { name: String(name), tool, args, facts: store }, provenance.judgeTimeoutMs);
    provenance.verdicts.set(key, verdict);
    if (verdict instanceof Promise) void verdict.then((settled) => provenance.verdicts.set(key, settled));
  }
  return andThen(verdict, (answer): Step => {
    if (answer === 'yes') return hooks.succeed(literal, base, parent, { by: 'builtin', literal, base, goal: `judged(${String(name)}): yes`, children: [] }, k);
    if (answer === 'no') {
      hooks.fail(literal, base, [`the judge answered no to ${String(name)}`], 'judged no');
      return false;
    }
    if (hooks.negated) return false;
    const call = `${tool}(${Object.entries(args).map(([param, value]) => `${param}: ${JSON.stringify(value)}`).join(', ')})`;
    // The question says why it is asked: where the values the clause found untrusted came from.
    const why = parent.children.filter((node) => node.source === 'provenance' && node.goal !== undefined).map((node) => node.goal);
    const ask: Blocker & { kind: 'ask' } = {
      kind: 'ask',
      predicate: 'judged',
      args: [name, ref],
      goal: `judged(${JSON.stringify(name)}, ${JSON.stringify(ref)})`,
      question: `Do you want exactly this: ${call}? (${[String(name).replace(/_/g, ' '), ...why].join('; ')})`,
      call,
    };
    return hooks.assume(ask, parent, literal, base, k);
  });
}

function provenanceNode(literal: CLiteral, base: number, texts: string[], chain: readonly ProvenanceLink[]): ProofNode {
  return { by: 'fact', literal, base, goal: texts.length > 0 ? texts.join('; ') : literal.text, source: 'provenance', chain, children: [] };
}
