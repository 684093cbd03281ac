/**
 * Whether a quote occurs in the policy, read loosely where models differ from the text without changing its words:
 * case, runs of white space, typographic quotes and dashes, Markdown emphasis, and an ellipsis between fragments
 * (each fragment must occur, in order). Anything else (a paraphrase, a word changed) does not occur.
 */
export function quoteOccurs(quote: string, policy: string | NormalisedPolicy): boolean {
  const text = typeof policy === 'string' ? normalisePolicy(policy) : policy;
  const fragments = normalise(quote)
    .split(/\s*(?:\.\.\.|…)\s*/)
    .map((fragment) => fragment.replace(/^[\s"'.,;:!?()[\]-]+|[\s"'.,;:!?()[\]-]+$/g, ''))
    .filter((fragment) => fragment !== '');
  if (fragments.length === 0) return false;
  let from = 0;
  for (const fragment of fragments) {
    const at = text.value.indexOf(fragment, from);
    if (at === -1) return false;
    from = at + fragment.length;
  }
  return true;
}

/** A policy normalised once, for checking many quotes against it. */
export interface NormalisedPolicy {
  readonly value: string;
}

export function normalisePolicy(policy: string): NormalisedPolicy {
  return { value: normalise(policy) };
}

function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u201A\u201B`]/g, "'")
    .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
    .replace(/[\u2013\u2014\u2212]/g, '-')
    .replace(/[*_]{1,3}/g, '')
    .replace(/\s+/g, ' ');
}
