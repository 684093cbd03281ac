import { describe, expect, it } from 'vitest';
import { evaluateJsonPath, parseJsonPath, type PathSegment } from '../../src/rules/index.js';

const path = (text: string): PathSegment[] => {
  const parsed = parseJsonPath(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.segments;
};

describe('JSON paths', () => {
  it('parse keys, indexes, wildcards and quoted keys', () => {
    expect(path('$.a[0][*]["b c"].d')).toEqual([
      { kind: 'key', key: 'a' },
      { kind: 'index', index: 0 },
      { kind: 'wildcard' },
      { kind: 'key', key: 'b c' },
      { kind: 'key', key: 'd' },
    ]);
    expect(parseJsonPath('a.b')).toHaveProperty('error');
    expect(parseJsonPath('$.a[x]')).toHaveProperty('error');
    expect(parseJsonPath('$.')).toHaveProperty('error');
  });

  it('evaluate scalars, fan out over lists, read an array length', () => {
    const doc = { status: 'ok', flights: [{ n: 'A' }, { n: 'B' }], ids: ['x', 'y'], people: [1, 2, 3] };
    expect(evaluateJsonPath(doc, path('$.status'))).toEqual({ values: ['ok'], expanded: false });
    expect(evaluateJsonPath(doc, path('$.flights[*].n'))).toEqual({ values: ['A', 'B'], expanded: true });
    expect(evaluateJsonPath(doc, path('$.ids'))).toEqual({ values: ['x', 'y'], expanded: true });
    expect(evaluateJsonPath(doc, path('$.people.length'))).toEqual({ values: [3], expanded: false });
    expect(evaluateJsonPath(doc, path('$.flights[1].n'))).toEqual({ values: ['B'], expanded: false });
    expect(evaluateJsonPath({ methods: { c1: { id: 'c1' }, g2: { id: 'g2' } } }, path('$.methods[*].id'))).toEqual({ values: ['c1', 'g2'], expanded: true });
  });

  it('say where a result does not fit', () => {
    expect(evaluateJsonPath({ a: 1 }, path('$.b'))).toEqual({ mismatch: "$ has no key 'b'", absent: true });
    expect(evaluateJsonPath({ a: 1 }, path('$.a.b'))).toEqual({ mismatch: "$.a is number 1, not an object with 'b'" });
    expect(evaluateJsonPath({ a: 1 }, path('$.a[*]'))).toEqual({ mismatch: '$.a is number 1, not a list or an object' });
    expect(evaluateJsonPath({ a: [] }, path('$.a[0]'))).toEqual({ mismatch: '$.a has 0 elements, no [0]' });
    expect(evaluateJsonPath('text', path('$.a'))).toHaveProperty('mismatch');
  });
});
