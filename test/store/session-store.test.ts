import { describe, expect, it } from 'vitest';
import { createMemorySessionStore, InvalidOptionError } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';

describe('createMemorySessionStore', () => {
  it('forgets a session untouched for ttlMs, and a read counts as a touch', () => {
    const clock = createFakeClock();
    const store = createMemorySessionStore<number>({ ttlMs: 1000, clock });
    store.set('a', 1);
    store.set('b', 2);
    clock.advance(600);
    expect(store.get('a')).toBe(1);
    clock.advance(600);
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe(1);
    expect(store.size).toBe(1);
  });

  it('never returns an expired session, whether or not a write has swept it yet', () => {
    const clock = createFakeClock();
    const store = createMemorySessionStore<number>({ ttlMs: 5000, clock });
    store.set('a', 1);
    store.set('b', 2);
    clock.advance(4000);
    store.set('b', 3); // this write's sweep finds nothing expired yet
    clock.advance(1500);
    expect(store.get('a')).toBeUndefined();
    expect(store.get('b')).toBe(3);
    expect(store.size).toBe(1);
  });

  it('keeps at most maxSessions, dropping the least recently used', () => {
    const store = createMemorySessionStore<number>({ maxSessions: 2 });
    store.set('a', 1);
    store.set('b', 2);
    store.get('a');
    store.set('c', 3);
    expect([store.get('a'), store.get('b'), store.get('c')]).toEqual([1, undefined, 3]);
  });

  it('stays bounded with 10,000 sessions at once', () => {
    const store = createMemorySessionStore<number>({ maxSessions: 1000 });
    for (let i = 0; i < 10_000; i++) store.set(`s${i}`, i);
    expect(store.size).toBe(1000);
    expect(store.get('s9999')).toBe(9999);
    expect(store.get('s0')).toBeUndefined();
  });

  it('rejects bad limits at construction', () => {
    expect(() => createMemorySessionStore({ ttlMs: 0 })).toThrow(InvalidOptionError);
    expect(() => createMemorySessionStore({ maxSessions: 1.5 })).toThrow('Invalid option `maxSessions`: received 1.5.');
  });
});
