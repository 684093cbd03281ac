/** A passage a verdict rests on: where it is (`source`, optionally `section`) and the words quoted from it. */
export interface Citation {
  source: string;
  section?: string;
  quote: string;
}

/** A document a run read, as citations are checked against it: its text and where it came from. */
export interface CitableDocument {
  text: string;
  source?: string;
}

/** A citation that could not be verified, and why. */
export interface RejectedCitation extends Citation {
  reason: 'quote_not_found' | 'empty_quote';
}

/** What {@link verifyCitations} returns: the citations whose quotes occur in a read document, and the rest. */
export interface CitationCheck {
  verified: Citation[];
  rejected: RejectedCitation[];
}

/**
 * Text as quotes are compared: lower case, runs of whitespace as one space, typographic quotes and dashes as their
 * ASCII forms (a model copying "policy’s" as "policy's" quoted it), trimmed.
 */
export function normalizeQuoteText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u201b\u2032]/g, "'")
    .replace(/[\u201c\u201d\u201f\u2033]/g, '"')
    .replace(/[\u2010-\u2015]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Checks each citation against the documents a run actually read: a citation stands when its quote, whitespace and
 * case normalised, occurs in one of them. The source name is not trusted on its own (a model may name the right
 * file and invent the words); when the quote is found, the citation keeps the source the model gave, unless it
 * named none of the documents, in which case it takes the source of the document that holds the quote.
 * Linear in the documents' size per citation; the documents were bounded when they were retrieved.
 * @example
 * verifyCitations([{ source: 'policy.md', quote: 'prior  AUTHORIZATION is required' }], [{ source: 'policy.md', text: 'Prior authorization is required for MRI.' }])
 * // { verified: [{ source: 'policy.md', quote: 'prior  AUTHORIZATION is required' }], rejected: [] }
 */
export function verifyCitations(citations: readonly Citation[], documents: readonly CitableDocument[]): CitationCheck {
  const normalized = documents.map((document) => ({ source: document.source, text: normalizeQuoteText(document.text) }));
  const verified: Citation[] = [];
  const rejected: RejectedCitation[] = [];
  for (const citation of citations) {
    const quote = normalizeQuoteText(citation.quote ?? '');
    if (quote.length === 0) {
      rejected.push({ ...citation, reason: 'empty_quote' });
      continue;
    }
    const holders = normalized.filter((document) => document.text.includes(quote));
    if (holders.length === 0) rejected.push({ ...citation, reason: 'quote_not_found' });
    else if (holders.some((document) => document.source === citation.source) || holders[0]!.source === undefined) verified.push(citation);
    else verified.push({ ...citation, source: holders[0]!.source });
  }
  return { verified, rejected };
}
