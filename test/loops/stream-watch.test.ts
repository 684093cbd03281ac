import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLoopDetector } from '../../src/index.js';

/** Splits `text` into chunks of the given sizes, cycling through them: how a provider's deltas arrive. */
function chunked(text: string, sizes: readonly number[]): string[] {
  const chunks: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}

const PASSAGE = 'I should check the refund policy once more before I answer. ';
const CHANT = PASSAGE.repeat(200);

describe('watchStream: the text checks on a response as it arrives', () => {
  it('finds a chanting response before it ends, however the deltas are cut', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 8 }), (sizes) => {
        const watch = createLoopDetector().watchStream();
        let consumed = 0;
        for (const chunk of chunked(CHANT, sizes)) {
          consumed += chunk.length;
          if (watch.text(chunk)) break;
        }
        expect(watch.found?.kind).toBe('repeated-text');
        // Found within one rescan interval after ten copies are in (4,096 characters of new text at most).
        expect(consumed).toBeLessThanOrEqual(10 * PASSAGE.length + 4_096 + 97);
        expect(consumed).toBeLessThan(CHANT.length);
      }),
      { numRuns: 200 },
    );
  });

  it('finds a line repeated across the reasoning stream, split across chunks', () => {
    const watch = createLoopDetector().watchStream();
    const reasoning = Array.from({ length: 8 }, (_, i) => `Step ${i}: reading the file.\nWait, let me re-check the config file.\n`).join('');
    let found = null;
    for (const chunk of chunked(reasoning, [7, 3, 11])) found ??= watch.reasoning(chunk);
    expect(found).toMatchObject({ kind: 'repeated-line', evidence: { repetitions: 5 } });
    expect(found?.detail).toContain('wait, let me re-check the config file.');
  });

  it('counts a line in the text and the reasoning together, without joining a text delta to a reasoning line', () => {
    const watch = createLoopDetector({ repeatedLine: 4 }).watchStream();
    const line = 'Let me look at the booking again.\n';
    watch.reasoning(line + line + 'Let me look at the');
    watch.text(line);
    expect(watch.found).toBeNull(); // three whole lines so far; the reasoning's partial line is not finished by the text
    watch.reasoning(' booking again.\n');
    expect(watch.found).toMatchObject({ kind: 'repeated-line', evidence: { repetitions: 4 } });
  });

  it('leaves code, tables and dividers alone however long they run', () => {
    const watch = createLoopDetector().watchStream();
    const table = `| id | status |\n|----|--------|\n${'| 42 | pending |\n'.repeat(400)}`;
    const code = `\`\`\`ts\n${'expect(result).toEqual(expected);\n'.repeat(400)}\`\`\`\n`;
    const divider = `${'='.repeat(500)}\n${'-'.repeat(500)}\n`;
    for (const chunk of chunked(table + code + divider + code, [64, 5, 300])) expect(watch.text(chunk)).toBeNull();
  });

  it('keeps reading code as code after trimming a very long stream (the fence opened before the kept tail)', () => {
    const watch = createLoopDetector().watchStream();
    const prose = 'Here is the whole test file you asked for, unchanged except for the new case.\n';
    const code = `\`\`\`ts\n${Array.from({ length: 5_000 }, (_, i) => `it('case ${i}', () => { expect(run(${i})).toBe(true); });`).join('\n')}\n`;
    const repetitiveCode = 'expect(value).toBe(true); // same assertion, same line\n'.repeat(200);
    for (const chunk of chunked(prose + code + repetitiveCode, [512])) expect(watch.text(chunk)).toBeNull();
  });

  it('stays silent with the checks turned off, and on honest prose', () => {
    const off = createLoopDetector({ repeatedText: false, repeatedLine: false }).watchStream();
    for (const chunk of chunked(CHANT, [40])) expect(off.text(chunk)).toBeNull();
    const honest = createLoopDetector().watchStream();
    const prose = Array.from({ length: 300 }, (_, i) => `Sentence ${i} says something new about flight ${1000 + i}.`).join(' ');
    for (const chunk of chunked(prose, [33])) expect(honest.text(chunk)).toBeNull();
  });

  it('ignores what is not a string delta rather than failing the stream', () => {
    const watch = createLoopDetector().watchStream();
    expect(watch.text(undefined as unknown as string)).toBeNull();
    expect(watch.reasoning(42 as unknown as string)).toBeNull();
    expect(watch.text('fine')).toBeNull();
  });
});
