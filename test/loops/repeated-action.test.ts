import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { act, call, detectorFor, kinds, runSteps, times } from './helpers.js';

describe('repeated-action', () => {
  it('fires at the 4th identical call with the same result, not at the 3rd', () => {
    const reports = runSteps(detectorFor(), times(4, act('search', { q: 'flights to Paris' }, 'no results')));
    expect(kinds(reports)).toEqual(['-', '-', '-', 'repeated-action']);
    expect(reports[3]).toMatchObject({
      kind: 'repeated-action',
      step: 4,
      detection: 1,
      action: 'hint',
      evidence: { steps: [1, 2, 3, 4], repetitions: 4, calls: [{ name: 'search', args: '{"q":"flights to Paris"}' }] },
    });
    expect(reports[3]!.hint).toContain('you called `search` 4 times in a row with the same arguments and got the same result each time');
  });

  it('fires at any threshold chosen, and not one step before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 12 }), (threshold) => {
        const detector = detectorFor({ repeatedAction: threshold, toolCycle: false });
        const reports = runSteps(detector, times(threshold, act('lookup', { id: 7 }, { ok: true })));
        return reports.slice(0, -1).every((report) => report === null) && reports.at(-1)?.kind === 'repeated-action';
      }),
    );
  });

  it('compares arguments whatever their key order', () => {
    const steps = times(4, (i) => act('search', i % 2 ? { q: 'x', page: 1 } : { page: 1, q: 'x' }, 'same'));
    expect(kinds(runSteps(detectorFor(), steps)).at(-1)).toBe('repeated-action');
  });

  it('stays quiet when the results change (the agent is getting somewhere)', () => {
    const steps = times(4, (i) => act('read_queue', {}, `position ${10 - i}`));
    expect(kinds(runSteps(detectorFor(), steps))).toEqual(['-', '-', '-', '-']);
  });

  it('stays quiet when an argument changes (a legitimate retry)', () => {
    const steps = [
      act('search', { q: 'flights Paris' }, 'no results'),
      act('search', { q: 'flights Paris' }, 'no results'),
      act('search', { q: 'flights Paris' }, 'no results'),
      act('search', { q: 'flights to Paris CDG' }, 'no results'),
    ];
    expect(kinds(runSteps(detectorFor(), steps))).toEqual(['-', '-', '-', '-']);
  });

  it('treats results that differ only in volatile values (timestamps, UUIDs) as the same', () => {
    const steps = times(4, (i) =>
      act('status', { job: 1 }, { state: 'pending', checkedAt: `2026-01-01T10:00:0${i}Z`, requestId: `8c1f0b6e-2d3a-4f5b-9c7d-0e1f2a3b4c5${i}` }),
    );
    expect(kinds(runSteps(detectorFor(), steps)).at(-1)).toBe('repeated-action');
  });

  it('ignores the keys named in ignoreKeys, in arguments and in JSON results', () => {
    const steps = times(4, (i) => act('fetch', { url: '/a', nonce: i }, JSON.stringify({ body: 'same', served: i })));
    expect(kinds(runSteps(detectorFor(), steps)).at(-1)).toBe('-');
    expect(kinds(runSteps(detectorFor({ ignoreKeys: ['nonce', 'served'] }), steps)).at(-1)).toBe('repeated-action');
  });

  // Issue 15: Roo Code refuses the 4th identical consecutive call; reporting when its result arrives was a turn late.
  it('fires when the 4th identical call is made, before its result, and not again when the result arrives', () => {
    const detector = detectorFor();
    const seen = [];
    for (let i = 0; i < 4; i++) {
      seen.push(detector.observeStructural('s1', { toolCalls: [call('search', { q: 'x' }, `c${i}`)] }));
      seen.push(detector.observeStructural('s1', { toolResults: [{ toolCallId: `c${i}`, content: 'nothing' }] }));
    }
    expect(kinds(seen)).toEqual(['-', '-', '-', '-', '-', '-', 'repeated-action', '-']);
    expect(seen[6]).toMatchObject({ step: 4, detection: 1, evidence: { steps: [1, 2, 3, 4] } });
    expect(seen[6]!.detail).toBe('you called `search` 4 times in a row with the same arguments and got the same result each time it answered');
  });

  it('counts calls whose results never arrive as unchanged', () => {
    const reports = runSteps(detectorFor(), times(4, (i) => ({ toolCalls: [call('search', { q: 'x' }, `c${i}`)] })));
    expect(kinds(reports)).toEqual(['-', '-', '-', 'repeated-action']);
    expect(reports[3]!.detail).toBe('you called `search` 4 times in a row with the same arguments');
  });

  it('escalates on each further identical call: stronger hint at the 5th, stop at the 6th', () => {
    const reports = runSteps(detectorFor({ toolCycle: false }), times(6, act('search', { q: 'x' }, 'same')));
    expect(reports.map((report) => report?.action ?? '-')).toEqual(['-', '-', '-', 'hint', 'stronger-hint', 'stop']);
  });

  it('leaves identical calls whose results differ each time to the cycle check, at the 5th call', () => {
    const steps = times(5, (i) => act('run_tests', {}, `SyntaxError at line ${i + 1}`));
    expect(kinds(runSteps(detectorFor(), steps))).toEqual(['-', '-', '-', '-', 'tool-cycle']);
  });

  it('warns earlier when repeatedActionWarning is set (Cline warns at the 3rd), without hastening the stop', () => {
    const reports = runSteps(detectorFor({ repeatedActionWarning: 3, toolCycle: false }), times(6, act('search', { q: 'x' }, 'same')));
    expect(reports.map((report) => (report ? `${report.loopId.split(':')[0]} ${report.action}` : '-'))).toEqual([
      '-',
      '-',
      'repeated-action-warning hint',
      'repeated-action hint',
      'repeated-action stronger-hint',
      'repeated-action stop',
    ]);
    expect(kinds(runSteps(detectorFor(), times(3, act('search', { q: 'x' }, 'same'))))).toEqual(['-', '-', '-']);
  });

  it('reports k identical calls (results identical or absent) exactly at the threshold, whatever k and the threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 1, max: 16 }), fc.boolean(), (threshold, k, withResults) => {
        const detector = detectorFor({ repeatedAction: threshold, toolCycle: false, alternation: false });
        const reports = runSteps(detector, times(k, withResults ? act('lookup', { id: 7 }, { ok: true }) : { toolCalls: [call('lookup', { id: 7 })] }));
        return reports.every((report, i) => (i + 1 < threshold ? report === null : report?.kind === 'repeated-action'));
      }),
    );
  });

  it('ignores results delivered twice', () => {
    const detector = detectorFor();
    for (let i = 0; i < 3; i++) {
      detector.observeStructural('s1', { toolCalls: [call('search', { q: 'x' }, `c${i}`)] });
      detector.observeStructural('s1', { toolResults: [{ toolCallId: `c${i}`, content: 'nothing' }] });
    }
    detector.observeStructural('s1', { toolCalls: [call('search', { q: 'x' }, 'c3')] });
    // The third call's result again: already answered, so nothing new to check.
    expect(detector.observeStructural('s1', { toolResults: [{ toolCallId: 'c2', content: 'nothing' }] })).toBeNull();
  });

  it('can be turned off', () => {
    const reports = runSteps(detectorFor({ repeatedAction: false, toolCycle: false }), times(8, act('search', { q: 'x' }, 'same')));
    expect(reports.every((report) => report === null)).toBe(true);
  });
});

describe('results that arrive with a later step', () => {
  it('still answer their calls when the later step only polls an exempt tool', () => {
    const detector = detectorFor({ exemptTools: ['poll'] });
    const reports = [];
    for (let i = 0; i < 4; i++) {
      reports.push(
        detector.observeStructural('s1', {
          toolCalls: [call('poll', {}, `p${i}`)],
          toolResults: [
            { toolCallId: `p${i}`, content: 'pending' },
            ...(i === 0 ? [] : [{ toolCallId: `c${i - 1}`, content: 'same' }]),
          ],
        }),
      );
      reports.push(detector.observeStructural('s1', { toolCalls: [call('search', { q: 'x' }, `c${i}`)] }));
    }
    reports.push(detector.observeStructural('s1', { toolResults: [{ toolCallId: 'c3', content: 'same' }] }));
    expect(kinds(reports)).toEqual(['-', '-', '-', '-', '-', '-', '-', 'repeated-action', '-']);
  });
});
