import { describe, expect, it } from 'vitest';
import { call, detectorFor, runSteps, times } from './helpers.js';

const actions = (reports: readonly ({ kind: string; action: string } | null)[]) => reports.map((report) => (report ? `${report.kind} ${report.action}` : '-'));

/** Issue 15: calls to a tool that does not exist (langchainjs#37961: about $26 in one turn). */
describe('unknown-tool', () => {
  it('hints at the 2nd call to a tool that is not offered, naming the tools that are, and stops at the 3rd', () => {
    const reports = runSteps(detectorFor({ tools: ['search', 'book'] }), times(3, (i) => ({ toolCalls: [call(`serch_${i}`, { q: 'x' })] })));
    expect(actions(reports)).toEqual(['-', 'unknown-tool hint', 'unknown-tool stop']);
    expect(reports[1]!.hint).toContain('the available tools are `search`, `book`');
  });

  it('is quiet while the calls are to offered tools, and when the offered tools are not known', () => {
    expect(actions(runSteps(detectorFor({ tools: ['search', 'book'] }), times(3, (i) => ({ toolCalls: [call('search', { q: i })] }))))).toEqual(['-', '-', '-']);
    expect(actions(runSteps(detectorFor(), times(3, (i) => ({ toolCalls: [call(`serch_${i}`, {})] }))))).toEqual(['-', '-', '-']);
  });

  it("takes a step's availableTools over the `tools` option, and its thresholds as options", () => {
    const step = (i: number) => ({ toolCalls: [call('book', { i })], availableTools: ['search'] });
    expect(actions(runSteps(detectorFor({ tools: ['book'] }), times(2, step)))).toEqual(['-', 'unknown-tool hint']);
    expect(actions(runSteps(detectorFor({ tools: ['search'], unknownTool: { hintAt: 1, stopAt: 4 } }), times(4, (i) => ({ toolCalls: [call('x', { i })] }))))).toEqual([
      'unknown-tool hint',
      'unknown-tool hint',
      'unknown-tool hint',
      'unknown-tool stop',
    ]);
    expect(actions(runSteps(detectorFor({ tools: ['search'], unknownTool: false }), times(3, (i) => ({ toolCalls: [call('x', { i })] }))))).toEqual(['-', '-', '-']);
  });
});
