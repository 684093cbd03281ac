import { afterEach, describe, expect, it } from 'vitest';
import { createMonitor, type DecisionLine } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { call, refundsWorkflow as refunds, say, supportWorkflow as workflow } from './fixtures.js';

const capture = () => {
  const lines: string[] = [];
  return { lines, logger: { warn: (line: string) => void lines.push(`warn:${line}`), debug: (line: string) => void lines.push(line) } };
};

afterEach(() => {
  delete process.env.PANOPTES_DEBUG;
});

describe('the decision log', () => {
  it('logs each decision as one JSON line: session, phase, state, constraint, verdict, reason, time', async () => {
    const { lines, logger } = capture();
    const monitor = createMonitor({ workflow, logger, debug: true, clock: createFakeClock(Date.UTC(2026, 10, 26)) });
    await monitor.afterModel('s1', say('hello'));
    await monitor.afterModel('s1', say('here are the internal notes'));
    await monitor.beforeModel('s1', { messages: [{ role: 'user', content: 'and?' }] });
    expect(lines.map((line) => JSON.parse(line) as DecisionLine)).toEqual([
      { panoptes: 'decision', time: '2026-11-26T00:00:00.000Z', session: 's1', phase: 'transition', state: 'leak', verdict: 'entered', reason: 'greeting -> leak' },
      { panoptes: 'decision', time: '2026-11-26T00:00:00.000Z', session: 's1', phase: 'transition', state: 'leak', verdict: 'deviation', reason: 'greeting -> leak is not a transition the workflow lists (or its guard failed)' },
      { panoptes: 'decision', time: '2026-11-26T00:00:00.000Z', session: 's1', phase: 'constraint', state: 'leak', constraint: 'no_leak', verdict: 'violated', reason: expect.stringMatching(/^error: /) },
      { panoptes: 'decision', time: '2026-11-26T00:00:00.000Z', session: 's1', phase: 'model', verdict: 'intervened', reason: 'no_leak (user-message-inject)' },
    ]);
  });

  it('is on with PANOPTES_DEBUG=1 and goes to logger.warn for a logger without debug; off by default', async () => {
    const quiet = capture();
    await createMonitor({ workflow, logger: quiet.logger }).afterModel('s1', say('tell me more'));
    expect(quiet.lines).toEqual([]);
    process.env.PANOPTES_DEBUG = '1';
    const warned: string[] = [];
    await createMonitor({ workflow, logger: { warn: (line: string) => void warned.push(line) } }).afterModel('s1', say('tell me more'));
    expect(warned.map((line) => JSON.parse(line) as DecisionLine)).toMatchObject([{ phase: 'transition', verdict: 'entered', state: 'identify_issue' }]);
    // debug: false wins over the environment
    const off = capture();
    await createMonitor({ workflow, logger: off.logger, debug: false }).afterModel('s1', say('tell me more'));
    expect(off.lines).toEqual([]);
  });

  it('a logger that throws never fails a call', async () => {
    const monitor = createMonitor({ workflow, debug: true, logger: { warn: () => {}, debug: () => { throw new Error('log sink down'); } } });
    await expect(monitor.afterModel('s1', say('tell me more'))).resolves.toMatchObject({ classifications: [{ state: 'identify_issue' }] });
  });

  it('names the workflow on each line with several workflows (after the session); one workflow writes no such field', async () => {
    const { lines, logger } = capture();
    const monitor = createMonitor({ workflows: { support: workflow, refunds }, default: 'support', select: (input) => (input.sessionId.startsWith('r') ? 'refunds' : 'support'), logger, debug: true, clock: createFakeClock(Date.UTC(2026, 10, 26)) });
    await monitor.afterModel('r1', call('issue_refund'));
    await monitor.beforeTool('r1', { id: 'issue_refund-1', name: 'issue_refund', args: {} });
    await monitor.afterModel('r1', call('get_booking'));
    await monitor.beforeTool('r1', { id: 'get_booking-1', name: 'get_booking', args: {} });
    await monitor.beforeModel('r1', { messages: [{ role: 'user', content: 'and?' }] });
    await monitor.afterModel('s1', say('tell me more'));
    const parsed = lines.map((line) => JSON.parse(line) as DecisionLine);
    expect(parsed.map(({ session, workflow, phase, verdict }) => ({ session, workflow, phase, verdict }))).toEqual([
      { session: 'r1', workflow: 'refunds', phase: 'tool', verdict: 'refused' },
      { session: 'r1', workflow: 'refunds', phase: 'transition', verdict: 'entered' },
      { session: 'r1', workflow: 'refunds', phase: 'model', verdict: 'intervened' },
      { session: 's1', workflow: 'support', phase: 'transition', verdict: 'entered' },
    ]);
    // the field comes right after the session, so a line reads session, workflow, then the decision
    expect(Object.keys(parsed[0]!).slice(0, 4)).toEqual(['panoptes', 'time', 'session', 'workflow']);

    const single = capture();
    await createMonitor({ workflow, logger: single.logger, debug: true }).afterModel('s1', say('tell me more'));
    expect(single.lines.map((line) => Object.keys(JSON.parse(line) as object))).toEqual([['panoptes', 'time', 'session', 'phase', 'state', 'verdict', 'reason']]);
  });
});
