import { describe, expect, it } from 'vitest';
import { findRepeatedPassage } from '../../src/loops/repeated-text.js';
import { detectorFor, kinds, runSteps, say } from './helpers.js';

const SENTENCE = 'I will now check the booking status again to be sure.'; // 54 characters

describe('repeated-text', () => {
  it('fires when one response repeats a passage 10 times, not 9', () => {
    expect(kinds(runSteps(detectorFor(), [say(`Sure. ${Array(9).fill(SENTENCE).join(' ')}`)]))).toEqual(['-']);
    const [report] = runSteps(detectorFor(), [say(`Sure. ${Array(10).fill(SENTENCE).join(' ')}`)]);
    expect(report).toMatchObject({ kind: 'repeated-text', evidence: { steps: [1], repetitions: 10, text: SENTENCE } });
  });

  // Regression, issue 15: 500 characters that a trim made 499 were checked against 10 x 50 before the scan.
  it('fires on exactly 10 copies of a 50-character passage that ends in a space, not on 9', () => {
    const passage = 'The quick brown fox jumps over the lazy dog again '; // 50 characters, the last a space
    expect(kinds(runSteps(detectorFor(), [say(passage.repeat(10))]))).toEqual(['repeated-text']);
    expect(kinds(runSteps(detectorFor(), [say(passage.repeat(9))]))).toEqual(['-']);
  });

  // Regression, issue 15: windows inside the repeated sentence recur nearer than the passage, which broke the run.
  it('finds a 150-character passage repeated 40 times when the passage itself repeats a sentence', () => {
    const sentence = 'Let me check the file again. '; // 29 characters
    const passage = `${sentence.repeat(3)}Then I will compare it with the expected output and report back to you. `.slice(0, 150);
    expect(passage).toHaveLength(150);
    expect(findRepeatedPassage(passage.repeat(40), 50, 10, 250)?.count).toBeGreaterThanOrEqual(10);
    expect(kinds(runSteps(detectorFor(), [say(passage.repeat(40))]))).toEqual(['repeated-text']);
    expect(kinds(runSteps(detectorFor(), [say(`${passage}${sentence.repeat(3)}`)]))).toEqual(['-']);
  });

  it('leaves copies that start further apart than `spacing` (250 characters) alone', () => {
    const long = Array.from({ length: 58 }, (_, i) => `w${i + 100}`).join(' '); // 289 characters, no inner repeat
    expect(long).toHaveLength(289);
    expect(kinds(runSteps(detectorFor(), [say(`${long} `.repeat(12))]))).toEqual(['-']);
    expect(kinds(runSteps(detectorFor({ repeatedText: { spacing: 300 } }), [say(`${long} `.repeat(12))]))).toEqual(['repeated-text']);
  });

  it('counts copies separated by line breaks or nothing at all', () => {
    expect(findRepeatedPassage(Array(10).fill(SENTENCE).join('\n'), 50, 10)?.count).toBe(10);
    expect(findRepeatedPassage(Array(10).fill(SENTENCE).join(''), 50, 10)?.count).toBe(10);
  });

  it('needs repetitions x chunkSize characters of a short passage', () => {
    expect(findRepeatedPassage('no way '.repeat(71), 50, 10)).toBeNull(); // 497 characters
    expect(findRepeatedPassage('no way '.repeat(72), 50, 10)).toMatchObject({ count: 72 });
  });

  it('stays quiet for long text with a shared prefix that is not repeated back to back', () => {
    const listing = Array.from({ length: 40 }, (_, i) => `/home/user/projects/panoptes/src/components/widgets/file-${i}.ts`).join('\n');
    expect(findRepeatedPassage(listing, 50, 10)).toBeNull();
  });

  it('takes its sizes as options and can be turned off', () => {
    const text = Array(4).fill('all work and no play').join(' ');
    expect(kinds(runSteps(detectorFor({ repeatedText: { chunkSize: 10, repetitions: 4 } }), [say(text)]))).toEqual(['repeated-text']);
    expect(kinds(runSteps(detectorFor({ repeatedText: false }), [say(`${Array(20).fill(SENTENCE).join(' ')}`)]))).toEqual(['-']);
  });

  // Its cost is measured by the bench (`npm run bench -- loops`), not asserted here.
  it('scans only the end of a 10 MB response', () => {
    const filler = Array.from({ length: 1_200_000 }, (_, i) => `word${i}`).join(' '); // about 10 MB, never repeating
    const huge = `${filler} ${Array(12).fill(SENTENCE).join(' ')}`;
    expect(findRepeatedPassage(huge, 50, 10)).toMatchObject({ count: 12 });
  });
});

describe('repeated-text reads only the prose of a Markdown response (issue 15)', () => {
  const chant = Array(12).fill(SENTENCE).join(' ');
  const quiet = (text: string) => expect(kinds(runSteps(detectorFor(), [say(text)]))).toEqual(['-']);
  const loud = (text: string) => expect(kinds(runSteps(detectorFor(), [say(text)]))).toEqual(['repeated-text']);

  it('leaves fenced code alone, backticks or tildes, and catches the same chant outside the fence', () => {
    quiet(`Here is the fixture:\n\n\`\`\`ts\n${Array(12).fill(`expect(parse(input)).toEqual(expected); // ${SENTENCE}`).join('\n')}\n\`\`\`\nDone.`);
    quiet(`~~~\n${chant}\n~~~`);
    quiet(`Cut short inside a block:\n\`\`\`\n${chant}`);
    loud(`\`\`\`\nconst a = 1;\n\`\`\`\n${chant}`);
  });

  it('leaves tables, headings, list items and block quotes alone', () => {
    quiet(`| id | status |\n|${'-'.repeat(500)}|\n${Array(12).fill(`| ${SENTENCE} | ok |`).join('\n')}`);
    quiet(Array(12).fill(`## ${SENTENCE}`).join('\n'));
    quiet(Array(12).fill(`- ${SENTENCE}`).join('\n'));
    quiet(Array(12).fill(`3. ${SENTENCE}`).join('\n'));
    quiet(Array(12).fill(`> ${SENTENCE}`).join('\n'));
  });

  it('never counts a divider or a run of one short token, in a line of its own or inside prose', () => {
    quiet(`Results\n${'='.repeat(500)}\n${'- '.repeat(300)}\n${'* * * '.repeat(100)}`);
    quiet(`The buffer holds ${'00 '.repeat(400)}and then ${'0xff,'.repeat(200)} as expected.`);
    quiet(`Section one ${'-'.repeat(600)} section two ${'.'.repeat(600)}`);
  });

  it('still finds a chant between a table and a code block, and never joins prose across them', () => {
    loud(`| a | b |\n|---|---|\n${chant}\n\`\`\`\nx\n\`\`\``);
    const half = Array(6).fill(SENTENCE).join(' ');
    quiet(`${half}\n\`\`\`\nx\n\`\`\`\n${half}`);
  });

  it("knows a long response's tail starts inside a code block opened before it", () => {
    quiet(`\`\`\`\n${'let x = 1;\n'.repeat(5000)}${chant}`);
  });
});
