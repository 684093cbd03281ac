import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSelector, describeSelector, selectorIncludes, selectorNames } from '../../src/temporal/index.js';
import { selectorArbitrary } from './arbitraries.js';

describe('compileSelector', () => {
  it('matches a name, !name, * and lists', () => {
    expect(compileSelector('a').matches('a')).toBe(true);
    expect(compileSelector('a').matches('b')).toBe(false);
    expect(compileSelector('!a').matches('a')).toBe(false);
    expect(compileSelector('!a').matches('b')).toBe(true);
    expect(compileSelector('*').matches('anything')).toBe(true);
    expect(compileSelector(['a', 'b']).matches('b')).toBe(true);
    expect(compileSelector(['a', 'b']).matches('c')).toBe(false);
  });

  it('collapses unions that match everything', () => {
    expect(compileSelector(['!a', '!b']).matchesAll).toBe(true);
    expect(compileSelector(['!a', 'a']).matchesAll).toBe(true);
    expect(compileSelector(['!a', 'b']).matchesAll).toBe(false);
    expect(compileSelector(['!a', 'b']).matches('a')).toBe(false);
  });

  it('agrees with reading the selector directly', () => {
    fc.assert(
      fc.property(selectorArbitrary, fc.constantFrom('a', 'b', 'c', 'd', 'e', '*', '!a'), (selector, state) => {
        expect(compileSelector(selector).matches(state)).toBe(selectorIncludes(selector, state));
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects malformed selectors, naming the parameter', () => {
    expect(() => compileSelector([], 'target')).toThrow('Invalid option `target`: received []. Name a state, `!state` (any state but that one), `*` (any state), or a non-empty list of these.');
    expect(() => compileSelector('')).toThrow('Invalid option `selector`: received ""');
    expect(() => compileSelector(['a', '!'])).toThrow('received ["a","!"]');
  });
});

describe('selectorNames', () => {
  it('lists plain and negated names once, never *', () => {
    expect(selectorNames(['a', '!b', '*', 'a'])).toEqual(['a', 'b']);
    expect(selectorNames('*')).toEqual([]);
    expect(compileSelector('!x').names).toEqual(['x']);
  });
});

describe('describeSelector', () => {
  it('renders for people', () => {
    expect(describeSelector('verify_identity')).toBe('verify_identity');
    expect(describeSelector(['a', 'b'])).toBe('any of a, b');
    expect(describeSelector('!x')).toBe('any state but x');
    expect(describeSelector('*')).toBe('any state');
    expect(describeSelector(['a'])).toBe('a');
    expect(describeSelector(['a', '!x'])).toBe('a or any state but x');
    expect(describeSelector(['a', 'b'], { quoted: true })).toBe("any of 'a', 'b'");
  });
});
