import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/loops/canonical-json.js';

/** Rebuilds an object with its keys in reverse order, at every depth. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reverseKeys(item)]));
}

describe('canonicalJson', () => {
  it('is JSON.stringify for JSON values, whatever the key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const canonical = canonicalJson(value);
        expect(JSON.parse(canonical)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(reverseKeys(value))).toBe(canonical);
      }),
    );
  });

  it('sorts keys at every depth', () => {
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: [{ z: 0, y: 1 }] })).toBe('{"a":[{"y":1,"z":0}],"b":{"c":2,"d":1}}');
  });

  it('follows JSON for undefined, functions, symbols, non-finite numbers and toJSON', () => {
    expect(canonicalJson({ a: undefined, f: () => 1, s: Symbol('x'), list: [undefined, () => 1, Number.NaN, Infinity, -0] })).toBe('{"list":[null,null,null,null,0]}');
    expect(canonicalJson({ at: new Date(Date.UTC(2026, 0, 1)) })).toBe('{"at":"2026-01-01T00:00:00.000Z"}');
    expect(canonicalJson(undefined)).toBe('null');
  });

  it('gives cycles, BigInt, Map and Set stable placeholders', () => {
    const cycle: Record<string, unknown> = { name: 'root' };
    cycle.self = cycle;
    cycle.list = [cycle];
    expect(canonicalJson(cycle)).toBe('{"list":["[Circular]"],"name":"root","self":"[Circular]"}');
    expect(canonicalJson({ big: 12345678901234567890n })).toBe('{"big":"[BigInt 12345678901234567890]"}');
    expect(canonicalJson(new Map<unknown, unknown>([['b', 1], ['a', 2]]))).toBe(canonicalJson(new Map<unknown, unknown>([['a', 2], ['b', 1]])));
    expect(canonicalJson(new Set([3, 1, 2]))).toBe('{"[Set]":[1,2,3]}');
  });

  it('renders a shared (non-cyclic) object in full each time', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('survives values that throw when read', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const getter = Object.defineProperty({}, 'secret', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    const badJson = { toJSON: () => { throw new Error('no'); } };
    expect(canonicalJson({ proxy, getter, badJson })).toBe('{"badJson":"[Unreadable]","getter":"[Unreadable]","proxy":"[Unreadable]"}');
  });

  it('bounds the work: depth, node count and string length', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 1000; i++) deep = [deep];
    expect(canonicalJson(deep, { maxDepth: 3 })).toBe('[[[["[Truncated]"]]]]');
    expect(canonicalJson(Array.from({ length: 10 }, (_, i) => i), { maxNodes: 4 })).toBe('[0,1,2,"[Truncated]"]');
    expect(canonicalJson('abcdef', { maxStringLength: 3 })).toBe('"abc…[6 characters]"');
    // A DAG that doubles at every level would be 2^40 nodes expanded.
    let dag: unknown = 1;
    for (let i = 0; i < 40; i++) dag = { left: dag, right: dag };
    expect(canonicalJson(dag).length).toBeLessThan(500_000);
  });

  it('drops ignored keys at any depth', () => {
    expect(canonicalJson({ id: 1, meta: { requestId: 'x', ok: true } }, { ignoreKeys: new Set(['requestId']) })).toBe('{"id":1,"meta":{"ok":true}}');
  });
});
