import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ring } from '../../src/loops/ring.js';

describe('Ring', () => {
  it('keeps the newest `capacity` items in order, like slicing the tail of a list', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer(), { maxLength: 40 }), (capacity, items) => {
        const ring = new Ring<number>(capacity);
        for (const item of items) ring.push(item);
        const tail = items.slice(-capacity);
        expect([...ring]).toEqual(tail);
        expect(ring.fromEnd(0)).toBe(tail.at(-1));
        expect(ring.oldest()).toBe(tail[0]);
      }),
    );
  });

  it('shifts from the oldest end', () => {
    const ring = new Ring<string>(2);
    ring.push('a');
    expect(ring.push('b')).toBeUndefined();
    expect(ring.push('c')).toBe('a');
    expect(ring.shift()).toBe('b');
    expect([...ring]).toEqual(['c']);
    expect(new Ring<number>(0).push(1)).toBe(1);
  });
});
