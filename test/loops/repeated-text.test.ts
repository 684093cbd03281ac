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

  it('counts copies separated by line breaks or nothing at all', () => {
    expect(findRepeatedPassage(Array(10).fill(SENTENCE).join('\n'), 50, 10)?.count).toBe(10);
    expect(findRepeatedPassage(Array(10).fill(SENTENCE).join(''), 50, 10)?.count).toBe(10);
  });

  it('needs repetitions x chunkSize characters of a short passage', () => {
    expect(findRepeatedPassage('ha '.repeat(166), 50, 10)).toBeNull(); // 497 characters
    expect(findRepeatedPassage('ha '.repeat(167), 50, 10)).toMatchObject({ count: 167 });
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

  it('scans a 10 MB response in bounded time', () => {
    const filler = Array.from({ length: 1_200_000 }, (_, i) => `word${i}`).join(' '); // about 10 MB, never repeating
    const huge = `${filler} ${Array(12).fill(SENTENCE).join(' ')}`;
    const started = performance.now();
    expect(findRepeatedPassage(huge, 50, 10)).toMatchObject({ count: 12 });
    expect(performance.now() - started).toBeLessThan(500);
  });
});
