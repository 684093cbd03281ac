import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/index.js';
import { createLoopDetector } from '../../src/loops/index.js';
import { act, detectorFor, kinds, runSteps, times } from './helpers.js';

/** Issue 15: exempt one action of a tool (a browser's scrolling) without exempting the whole tool. */
describe('exempt by action', () => {
  const scrolling = { tool: 'browser', when: (args: Record<string, unknown>) => String(args.action).startsWith('scroll') };

  it('never reports a page being scrolled, and still reports a repeated click on the same tool', () => {
    const detector = () => detectorFor({ exempt: [scrolling] });
    expect(kinds(runSteps(detector(), times(8, act('browser', { action: 'scroll_down' }, 'same page'))))).toEqual(Array(8).fill('-'));
    expect(kinds(runSteps(detector(), times(4, act('browser', { action: 'click', selector: '#buy' }, 'same page'))))).toEqual(['-', '-', '-', 'repeated-action']);
  });

  it('without the exemption, the scrolling is a loop', () => {
    expect(kinds(runSteps(detectorFor(), times(4, act('browser', { action: 'scroll_down' }, 'same page')))).at(-1)).toBe('repeated-action');
  });

  it('takes plain tool names too, alone or beside exemptTools', () => {
    const steps = times(8, act('poll', {}, 'pending'));
    expect(kinds(runSteps(detectorFor({ exempt: ['poll'] }), steps)).every((kind) => kind === '-')).toBe(true);
    expect(kinds(runSteps(detectorFor({ exempt: [{ tool: 'poll' }] }), steps)).every((kind) => kind === '-')).toBe(true);
    expect(kinds(runSteps(detectorFor({ exemptTools: ['poll'], exempt: [scrolling] }), steps)).every((kind) => kind === '-')).toBe(true);
  });

  it('checks a call whose predicate throws', () => {
    const detector = detectorFor({ exempt: [{ tool: 'browser', when: () => { throw new Error('bad predicate'); } }] });
    expect(kinds(runSteps(detector, times(4, act('browser', { action: 'scroll_down' }, 'same')))).at(-1)).toBe('repeated-action');
  });

  it('refuses at construction an entry that is neither a name nor { tool, when }', () => {
    for (const exempt of [[{ tool: 3 }], [{ tool: 'browser', when: 'scroll' }], 'browser', [null]]) {
      expect(() => createLoopDetector({ exempt: exempt as never })).toThrow(InvalidOptionError);
    }
    expect(() => createLoopDetector({ exempt: [{ tool: 3 }] as never })).toThrow(/^Invalid option `exempt`/);
  });
});
