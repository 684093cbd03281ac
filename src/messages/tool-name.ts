/**
 * Tool names as Panoptes matches them. A model (or whoever writes its answer) can spell a tool's name so that it
 * looks the same, or is looked up the same by a lax host, yet differs byte for byte: another case, spaces around it,
 * a NUL or a zero-width character inside, a Cyrillic letter for a Latin one. Matched exactly, such a call would pass
 * as a tool the workflow does not know; matched through {@link normaliseToolName}, it is the workflow's tool.
 * @module
 */

/**
 * Letters of other scripts (and Latin letters NFKC leaves alone) that look like a Latin letter, mapped to it, in
 * their own case: Cyrillic `Н` looks like `H` but `н` does not look like `h`, so the map comes before case folding.
 * The common confusables of UTS #39 for the Latin alphabet; not the whole table (no digits: names use them).
 */
const LOOKALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  А: 'A', В: 'B', Е: 'E', І: 'I', Ј: 'J', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Ѕ: 'S', Т: 'T', У: 'Y', Ү: 'Y', Х: 'X', Ԛ: 'Q', Ԝ: 'W', Ӏ: 'l',
  а: 'a', ԁ: 'd', е: 'e', һ: 'h', і: 'i', ј: 'j', к: 'k', ӏ: 'l', о: 'o', п: 'n', р: 'p', ԛ: 'q', ѕ: 's', с: 'c', у: 'y', ԝ: 'w', х: 'x', ь: 'b',
  // Greek
  Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X',
  α: 'a', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ϲ: 'c', ϳ: 'j',
  // Latin letters that NFKC keeps
  ɑ: 'a', ɡ: 'g', ı: 'i', ȷ: 'j', ʏ: 'y',
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'gu');
/** Control (Cc) and format (Cf) characters: NUL, zero-width space and joiners, BOM, bidi marks, soft hyphen. */
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
/** A name of printable ASCII alone: only its case can differ (the fast path, nearly every name). */
const PLAIN_ASCII = /^[\x21-\x7e]*$/;

/**
 * A tool name in the form Panoptes compares: Unicode NFKC (fullwidth and other compatibility forms become plain
 * letters), control and format characters removed (NUL, zero-width characters, BOM, bidi marks), letters of other
 * scripts that look Latin replaced by that Latin letter (Cyrillic `е`, Greek `ο`), case folded (`ß` as `ss`), and
 * whitespace trimmed. The classifier matches a workflow's `classification.tool_calls` through it, and the monitor
 * pairs a checked call with the call its answer announced through it; a host may use it for its own lookups.
 * Two different tools whose names normalise alike are one tool to the classifier: name tools apart by more than case.
 * @example
 * normaliseToolName(' Issue_R\u0435fund\u200b') // 'issue_refund' (a Cyrillic e and a zero-width space)
 */
export function normaliseToolName(name: string): string {
  if (PLAIN_ASCII.test(name)) return name.toLowerCase();
  // One pass can leave work for the next: folding makes letters of its own (ẞ folds to ß, which folds to ss; ᾀ to ἀι,
  // whose ι looks like i). A few passes reach the form a second call leaves unchanged.
  let form = name;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const next = onePass(form);
    if (next === form) break;
    form = next;
  }
  return form;
}

const MAX_PASSES = 4;

/** NFKC, invisible characters removed, look-alikes as Latin, case folded (upper then lower: ß, the dotless i), trimmed. */
function onePass(name: string): string {
  const visible = name.normalize('NFKC').replace(INVISIBLE, '');
  return visible.replace(LOOKALIKE, (letter) => LOOKALIKES[letter]!).toUpperCase().toLowerCase().trim();
}
