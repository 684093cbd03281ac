import { describe, expect, it } from 'vitest';
import { evaluateConstraint, type TemporalConstraint, type Verdict } from '../../src/temporal/index.js';

type Case = [trace: string[], open: Verdict, closed: Verdict];

function check(constraint: Omit<TemporalConstraint, 'name'>, cases: Case[]) {
  for (const [trace, open, closed] of cases) {
    it(`${JSON.stringify(trace)} -> open ${open}, closed ${closed}`, () => {
      expect(evaluateConstraint({ name: 'c', ...constraint }, trace)).toBe(open);
      expect(evaluateConstraint({ name: 'c', ...constraint }, trace, { closed: true })).toBe(closed);
    });
  }
}

describe('evaluateConstraint', () => {
  describe('eventually', () => {
    check({ type: 'eventually', target: 'r' }, [
      [[], 'pending', 'violated'],
      [['a'], 'pending', 'violated'],
      [['a', 'r'], 'satisfied', 'satisfied'],
      [['r', 'a'], 'satisfied', 'satisfied'],
    ]);
    describe('list', () => check({ type: 'eventually', target: ['x', 'r'] }, [[['a', 'r'], 'satisfied', 'satisfied']]));
    describe('!name', () => check({ type: 'eventually', target: '!a' }, [
      [['a'], 'pending', 'violated'],
      [['a', 'b'], 'satisfied', 'satisfied'],
    ]));
    describe('*', () => check({ type: 'eventually', target: '*' }, [
      [[], 'pending', 'violated'],
      [['a'], 'satisfied', 'satisfied'],
    ]));
  });

  describe('never', () => {
    check({ type: 'never', target: 'x' }, [
      [[], 'pending', 'satisfied'],
      [['a'], 'pending', 'satisfied'],
      [['a', 'x'], 'violated', 'violated'],
      [['x', 'a'], 'violated', 'violated'],
    ]);
    describe('!name, with a duplicate', () => check({ type: 'never', target: '!a' }, [
      [['a', 'a'], 'pending', 'satisfied'],
      [['a', 'b'], 'violated', 'violated'],
    ]));
    describe('*', () => check({ type: 'never', target: '*' }, [
      [[], 'pending', 'satisfied'],
      [['a'], 'violated', 'violated'],
    ]));
  });

  describe('always', () => {
    check({ type: 'always', condition: ['a', 'b'] }, [
      [[], 'pending', 'satisfied'],
      [['a', 'b', 'a'], 'pending', 'satisfied'],
      [['a', 'c', 'b'], 'violated', 'violated'],
    ]);
    describe('!name', () => check({ type: 'always', condition: '!x' }, [
      [['a', 'b'], 'pending', 'satisfied'],
      [['a', 'x'], 'violated', 'violated'],
    ]));
    describe('*', () => check({ type: 'always', condition: '*' }, [[['a', 'x'], 'pending', 'satisfied']]));
  });

  describe('precedence', () => {
    check({ type: 'precedence', trigger: 'refund', target: 'verify' }, [
      [[], 'pending', 'satisfied'],
      [['greet'], 'pending', 'satisfied'],
      [['greet', 'refund'], 'violated', 'violated'],
      [['refund', 'verify'], 'violated', 'violated'],
      [['greet', 'verify'], 'satisfied', 'satisfied'],
      [['verify', 'refund'], 'satisfied', 'satisfied'],
    ]);
    describe('trigger and target in one state: no target strictly before', () =>
      check({ type: 'precedence', trigger: 'x', target: 'x' }, [
        [['x'], 'violated', 'violated'],
        [['a'], 'pending', 'satisfied'],
      ]));
    describe('lists', () => check({ type: 'precedence', trigger: ['x', 'y'], target: ['x', 'v'] }, [
      [['a', 'x'], 'violated', 'violated'],
      [['v', 'x'], 'satisfied', 'satisfied'],
      [['a', 'y'], 'violated', 'violated'],
    ]));
    describe('* trigger', () => check({ type: 'precedence', trigger: '*', target: 'v' }, [
      [[], 'pending', 'satisfied'],
      [['a'], 'violated', 'violated'],
    ]));
    describe('!name target', () => check({ type: 'precedence', trigger: 'r', target: '!a' }, [
      [['a', 'r'], 'violated', 'violated'],
      [['b', 'r'], 'satisfied', 'satisfied'],
    ]));
  });

  describe('response', () => {
    check({ type: 'response', trigger: 'q', target: 'ans' }, [
      [[], 'pending', 'satisfied'],
      [['a'], 'pending', 'satisfied'],
      [['q'], 'pending', 'violated'],
      [['q', 'ans'], 'pending', 'satisfied'],
      [['ans', 'q'], 'pending', 'violated'],
      [['q', 'a', 'q', 'ans'], 'pending', 'satisfied'],
      [['q', 'ans', 'q'], 'pending', 'violated'],
    ]);
    describe('trigger and target in one state: needs a target strictly after', () =>
      check({ type: 'response', trigger: 'x', target: 'x' }, [
        [['x'], 'pending', 'violated'],
        [['x', 'a', 'x'], 'pending', 'violated'],
        [['a'], 'pending', 'satisfied'],
      ]));
    describe('a target that is also a trigger', () => check({ type: 'response', trigger: ['q', 'ans'], target: 'ans' }, [
      [['q', 'ans'], 'pending', 'violated'],
      [['q', 'ans', 'ans'], 'pending', 'violated'],
    ]));
    describe('* trigger', () => check({ type: 'response', trigger: '*', target: '!a' }, [
      [[], 'pending', 'satisfied'],
      [['a', 'b'], 'pending', 'violated'],
    ]));
  });

  describe('until', () => {
    check({ type: 'until', trigger: 'hold', target: 'done' }, [
      [[], 'pending', 'satisfied'],
      [['x', 'y'], 'pending', 'satisfied'],
      [['x', 'hold'], 'pending', 'violated'],
      [['x', 'hold', 'hold', 'done'], 'satisfied', 'satisfied'],
      [['x', 'hold', 'y'], 'violated', 'violated'],
      [['x', 'hold', 'y', 'done'], 'violated', 'violated'],
      [['hold', 'done', 'y'], 'satisfied', 'satisfied'],
      [['done', 'hold'], 'pending', 'violated'],
    ]);
    describe('k is the first position in A; B at k satisfies', () => check({ type: 'until', trigger: ['h', 'd'], target: 'd' }, [
      [['d'], 'satisfied', 'satisfied'],
      [['h', 'd'], 'satisfied', 'satisfied'],
    ]));
    describe('* target', () => check({ type: 'until', trigger: 'h', target: '*' }, [[['a', 'h'], 'satisfied', 'satisfied']]));
    describe('!name trigger', () => check({ type: 'until', trigger: '!x', target: 'x' }, [
      [['x'], 'pending', 'satisfied'],
      [['a', 'b'], 'pending', 'violated'],
      [['a', 'x'], 'satisfied', 'satisfied'],
    ]));
  });

  describe('next', () => {
    check({ type: 'next', trigger: 't', target: 'u' }, [
      [[], 'pending', 'satisfied'],
      [['a'], 'pending', 'satisfied'],
      [['t'], 'pending', 'violated'],
      [['t', 'u'], 'pending', 'satisfied'],
      [['t', 'v'], 'violated', 'violated'],
      [['t', 'v', 'u'], 'violated', 'violated'],
      [['a', 't', 'u', 't'], 'pending', 'violated'],
    ]);
    describe('a duplicate that reaches it is one more position', () => check({ type: 'next', trigger: 't', target: ['t', 'u'] }, [
      [['t', 't'], 'pending', 'violated'],
      [['t', 't', 'u'], 'pending', 'satisfied'],
    ]));
    describe('* trigger', () => check({ type: 'next', trigger: '*', target: '!a' }, [
      [['a', 'b'], 'pending', 'violated'],
      [['b', 'a'], 'violated', 'violated'],
    ]));
  });

  describe('next without trigger', () => {
    check({ type: 'next', target: 'b' }, [
      [[], 'pending', 'violated'],
      [['a'], 'pending', 'violated'],
      [['a', 'b'], 'satisfied', 'satisfied'],
      [['a', 'c'], 'violated', 'violated'],
      [['a', 'c', 'b'], 'violated', 'violated'],
      [['b', 'b'], 'satisfied', 'satisfied'],
    ]);
  });

  it('throws on a missing parameter (see parameters.test.ts)', () => {
    expect(() => evaluateConstraint({ name: 'verify-first', type: 'precedence', trigger: 'process_refund' }, [])).toThrow('Invalid option `target`');
  });
});
