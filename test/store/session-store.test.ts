import fc from 'fast-check';
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

  it('answers like a plain LRU list with a TTL, over any sequence of reads, writes, deletes and waits', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const operation = fc.oneof(
      fc.record({ kind: fc.constant('get' as const), id: fc.constantFrom(...ids) }),
      fc.record({ kind: fc.constant('set' as const), id: fc.constantFrom(...ids), value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.constantFrom(...ids) }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 700 }) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        const clock = createFakeClock();
        const ttlMs = 1000;
        const store = createMemorySessionStore<number>({ ttlMs, maxSessions: 3, clock });
        // The oracle: most recently used last, each entry with the time it was last touched.
        let model: Array<{ id: string; value: number; touchedAt: number }> = [];
        const live = () => (model = model.filter((entry) => clock.now() - entry.touchedAt < ttlMs));
        for (const op of operations) {
          if (op.kind === 'wait') {
            clock.advance(op.ms);
            continue;
          }
          live();
          const found = model.find((entry) => entry.id === op.id);
          model = model.filter((entry) => entry.id !== op.id);
          if (op.kind === 'get') {
            expect(store.get(op.id)).toBe(found?.value);
            if (found) model.push({ ...found, touchedAt: clock.now() });
          } else if (op.kind === 'set') {
            store.set(op.id, op.value);
            model.push({ id: op.id, value: op.value, touchedAt: clock.now() });
            if (model.length > 3) model.shift();
          } else {
            store.delete(op.id);
          }
        }
        live();
        expect(store.size).toBe(model.length);
        for (const entry of model) expect(store.get(entry.id)).toBe(entry.value);
      }),
    );
  });

  it('rejects bad limits at construction', () => {
    expect(() => createMemorySessionStore({ ttlMs: 0 })).toThrow(InvalidOptionError);
    expect(() => createMemorySessionStore({ maxSessions: 1.5 })).toThrow('Invalid option `maxSessions`: received 1.5.');
  });
});
