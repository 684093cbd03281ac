import { canonicalJson, formatFact, type StoredFact } from '../facts/index.js';
import type { Value } from '../rules/index.js';
import type { CLiteral } from './compile.js';
import { renderLiteral } from './render.js';
import type { ProvenanceLink } from './provenance-relations.js';
import type { Derivation, DerivationKind } from './result.js';
import type { Environment } from './terms.js';

/**
 * The proof of the branch the search is on, built as it goes and cut back as it backtracks. Nodes hold terms, not
 * text: a branch that fails is never rendered, and the one that succeeds is rendered once, by {@link snapshotProof}.
 */
export interface ProofNode {
  by: DerivationKind;
  literal?: CLiteral;
  /** Frame of the literal's variables. */
  base: number;
  fact?: StoredFact;
  source?: string;
  goal?: string;
  /** For a provenance relation that held: where the values came from (a refusal under `not` names it). */
  chain?: readonly ProvenanceLink[];
  children: ProofNode[];
}

// Stored facts never change, and a proof meets the same ones check after check.
const factTexts = new WeakMap<StoredFact, string>();

function factText(fact: StoredFact): string {
  let text = factTexts.get(fact);
  if (text === undefined) factTexts.set(fact, (text = formatFact(fact.predicate, fact.args)));
  return text;
}

/**
 * The proof as it stands, rendered with the current bindings (which backtracking undoes right after). Collects the
 * ids of the facts it rests on into `factIds`.
 */
export function snapshotProof(env: Environment, node: ProofNode, factIds: number[]): Derivation {
  if (node.fact) factIds.push(node.fact.id);
  const goal = node.goal ?? (node.fact ? factText(node.fact) : node.literal ? renderLiteral(env, node.literal, node.base) : 'goal');
  const children: Derivation[] = [];
  for (const child of node.children) children.push(snapshotProof(env, child, factIds));
  return node.source ? { goal, by: node.by, source: node.source, children } : { goal, by: node.by, children };
}

/** The leaves that made a proof hold: fetched and static facts, confirmations, and absences (`not ...`). */
export function collectFactTexts(derivation: Derivation): string[] {
  const isLeafFact =
    derivation.by === 'fact' ||
    derivation.by === 'negation' ||
    (derivation.by === 'askable' && derivation.source !== 'unconfirmed') ||
    (derivation.by === 'rule' && derivation.children.length === 0);
  return [...(isLeafFact ? [derivation.goal] : []), ...derivation.children.flatMap(collectFactTexts)];
}

/** Facts in the current branch that mention any of `values`: the ones that made a comparison fail. */
export function factsMentioning(root: ProofNode, values: readonly Value[]): string[] {
  const wanted = new Set(values.map((value) => canonicalJson(value)));
  const found = new Set<string>();
  const walk = (node: ProofNode) => {
    if (node.fact && node.fact.args.some((arg) => wanted.has(canonicalJson(arg)))) found.add(factText(node.fact));
    for (const child of node.children) walk(child);
  };
  walk(root);
  return [...found];
}
