import { describe, expect, it } from 'vitest';
import { findQuoteSpan, policySourceNames, splitPolicy } from '../../src/index.js';

const POLICY = `# Travel Policy

Applies to everyone.

## 2. Receipts

### 2.1 When a receipt is required

Every expense of 25 USD or more must be supported by an itemised receipt.

\`\`\`
# a comment in a code block, not a heading
\`\`\`

## 3. Meals ##
Alcohol is never reimbursed.

Lodging
-------
The nightly cap is 180 USD.
`;

describe('splitPolicy', () => {
  it('names each chunk by the path of the headings above it, with its lines', () => {
    expect(splitPolicy(POLICY, { source: 'travel.md' })).toEqual([
      { source: 'travel.md', section: 'Travel Policy', text: 'Applies to everyone.', startLine: 3, endLine: 3 },
      {
        source: 'travel.md',
        section: 'Travel Policy > 2. Receipts > 2.1 When a receipt is required',
        text: 'Every expense of 25 USD or more must be supported by an itemised receipt.\n\n```\n# a comment in a code block, not a heading\n```',
        startLine: 9,
        endLine: 13,
      },
      // the closing #s are not part of the heading; a setext heading replaces its level
      { source: 'travel.md', section: 'Travel Policy > 3. Meals', text: 'Alcohol is never reimbursed.', startLine: 16, endLine: 16 },
      { source: 'travel.md', section: 'Travel Policy > Lodging', text: 'The nightly cap is 180 USD.', startLine: 20, endLine: 20 },
    ]);
  });

  it('cuts a long section between paragraphs, and a long paragraph between sentences, keeping the section', () => {
    const paragraph = (n: number) => `Clause ${n}. ${'The employee keeps the receipt. '.repeat(5).trim()}`;
    const text = `## 4. Lodging\n\n${[1, 2, 3, 4, 5, 6].map(paragraph).join('\n\n')}\n\n${'A very long sentence without end '.repeat(20)}`;
    const chunks = splitPolicy(text, { source: 'p.md', maxChunkChars: 400 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.section).toBe('4. Lodging');
      expect(chunk.text.length).toBeLessThanOrEqual(400);
    }
    expect(chunks[0]!.text.startsWith('Clause 1.')).toBe(true);
    expect(chunks.map((chunk) => chunk.text).join(' ')).toContain('Clause 6.');
  });

  it('cuts plain text by paragraphs, with no section, and skips empty sections', () => {
    expect(splitPolicy('First rule.\nstill first.\n\n\nSecond rule.', { source: 'rules.txt', format: 'text' })).toEqual([{ source: 'rules.txt', text: 'First rule.\nstill first.\n\nSecond rule.', startLine: 1, endLine: 5 }]);
    expect(splitPolicy('# Title\n## Empty\n## Full\nText.', { source: 'p.md' })).toEqual([{ source: 'p.md', section: 'Title > Full', text: 'Text.', startLine: 4, endLine: 4 }]);
    expect(splitPolicy('', { source: 'p.md' })).toEqual([]);
  });
});

describe('findQuoteSpan', () => {
  it('finds a quote as citations are verified: case, whitespace, typographic quotes and dashes aside', () => {
    const text = 'Meals: the employee’s   per diem is 75 USD — “full days” only.';
    const span = findQuoteSpan(text, "THE EMPLOYEE'S per diem is 75 USD - \"full days\"");
    expect(span).toBeDefined();
    expect(text.slice(span!.start, span!.end)).toBe('the employee’s   per diem is 75 USD — “full days”');
    expect(findQuoteSpan(text, 'per diem is 80 USD')).toBeUndefined();
    expect(findQuoteSpan(text, '   ')).toBeUndefined();
  });

  it('maps offsets back through characters that are longer in lower case or outside the BMP', () => {
    const text = 'İstanbul 🚀 trips need approval.';
    const span = findQuoteSpan(text, '🚀 trips need');
    expect(text.slice(span!.start, span!.end)).toBe('🚀 trips need');
  });
});

describe('policySourceNames', () => {
  it('uses file names, and the paths given where two files share a name', () => {
    expect(policySourceNames(['policies/travel.md', 'old/travel.md', 'meals.md'])).toEqual(['policies/travel.md', 'old/travel.md', 'meals.md']);
    expect(policySourceNames(['a/travel.md', 'b/meals.md'])).toEqual(['travel.md', 'meals.md']);
  });
});
