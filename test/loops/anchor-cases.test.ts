/**
 * The last anchor cases of the hosts whose loop detection we match, at the default settings, written from their
 * published test scenarios: OpenHands' `test_is_stuck_monologue` (a monologue broken by an observation between the
 * messages) and Gemini CLI's `loopDetectionService.test.ts` (a chant outside a code block, and text mixing a code
 * block with a repeated passage, streamed as the chunks its test sends).
 */
import { describe, expect, it } from 'vitest';
import { detectorFor, kinds, runSteps, say, times } from './helpers.js';
import type { LoopStep } from '../../src/loops/index.js';

/** Gemini CLI's `createRepetitiveContent(1, 50)`: a sentence repeated and cut to 50 characters. */
const repetitive = (id: number, length: number) => {
  const base = `This is a unique sentence, id=${id}. `;
  let content = '';
  while (content.length < length) content += base;
  return content.slice(0, length);
};
/** The same text `count` times. */
const copies = (count: number, text: string): string[] => Array.from({ length: count }, () => text);

describe('OpenHands: a monologue with an observation between the messages', () => {
  it('three identical messages are a monologue; an observation after them starts the count again', () => {
    const message = say("I'm doing well, thanks for asking.");
    const observation: LoopStep = { toolResults: [{ name: 'storybook', content: 'OK, I was stuck, but no more.', isError: false }] };
    expect(kinds(runSteps(detectorFor(), [...times(3, message)])).at(-1)).toBe('monologue');
    // Their scenario goes on: an observation, then two more of the same message: no longer stuck.
    const reports = runSteps(detectorFor(), [say('How are you?'), ...times(3, message), observation, message, message]);
    expect(kinds(reports).slice(-3)).toEqual(['-', '-', '-']);
  });
});

describe('Gemini CLI: repetitive prose outside a code block', () => {
  it('a chant right after a closing fence is prose, as in their stream', () => {
    const chunk = repetitive(1, 50);
    // '```', '\nsome code\n', '```', then the chant ten times: one response text.
    const text = ['```', '\nsome code\n', '```', ...copies(10, chunk)].join('');
    expect(kinds(runSteps(detectorFor(), [say(text)]))).toEqual(['repeated-text']);
  });

  it('text mixing a code block with a repeated passage', () => {
    const chunk = repetitive(1, 50);
    const text = ['```', '\ncode1\n', '```', ...copies(10, chunk)].join('');
    expect(kinds(runSteps(detectorFor(), [say(text)]))).toEqual(['repeated-text']);
    // ... and the same chant inside the block stays quiet, as in their code-block cases.
    expect(kinds(runSteps(detectorFor(), [say(['```\n', ...copies(12, chunk), '\n```'].join(''))]))).toEqual(['-']);
    expect(kinds(runSteps(detectorFor(), [say(['Here is some code:\n```\n', ...copies(15, chunk)].join(''))]))).toEqual(['-']);
    // Their "multiple code blocks and no loops".
    expect(kinds(runSteps(detectorFor(), [say('```\ncode1\n```\nsome text\n```\ncode2\n```')]))).toEqual(['-']);
  });
});
