import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors/index.js';
import { createFactStore, formatValue, type FactStoreSnapshot } from '../../src/facts/index.js';
import type { Value } from '../../src/rules/index.js';
import { createFakeClock } from '../../src/testing/index.js';

describe('fact store', () => {
  it('holds facts with their source until they expire, at the exact millisecond', () => {
    const clock = createFakeClock();
    const facts = createFactStore({ clock });
    facts.assert('status', ['BK1', 'confirmed'], { source: 'tool:get_booking', ttlMs: 60_000 });
    expect(facts.facts('status')).toEqual([{ predicate: 'status', args: ['BK1', 'confirmed'], source: 'tool:get_booking', establishedAt: clock.now(), expiresAt: clock.now() + 60_000 }]);
    clock.advance(59_999);
    expect(facts.has('status', ['BK1', 'confirmed'])).toBe(true);
    clock.advance(1);
    expect(facts.has('status', ['BK1', 'confirmed'])).toBe(false);
    expect(facts.facts()).toEqual([]);
    expect(facts.match('status', ['BK1', undefined])).toEqual([]);
  });

  it('matches on any bound positions, atoms and strings alike', () => {
    const facts = createFactStore({ clock: createFakeClock() });
    facts.assert('flight', ['R1', 'HAT001', '2024-05-20']);
    facts.assert('flight', ['R1', 'HAT002', '2024-05-21']);
    facts.assert('flight', ['R2', 'HAT001', '2024-05-20']);
    expect(facts.match('flight', ['R1', undefined, undefined]).map((fact) => fact.args[1])).toEqual(['HAT001', 'HAT002']);
    expect(facts.match('flight', [undefined, 'HAT001', undefined]).map((fact) => fact.args[0])).toEqual(['R1', 'R2']);
    expect(facts.match('flight', ['R1', 'HAT002', '2024-05-21'])).toHaveLength(1);
    expect(facts.match('flight', ['R1', 'HAT002'])).toEqual([]);
  });

  it('re-asserting a fact replaces it, retracting removes it', () => {
    const clock = createFakeClock();
    const facts = createFactStore({ clock });
    facts.assert('p', [1], { ttlMs: 10 });
    facts.assert('p', [1]);
    clock.advance(100);
    expect(facts.has('p', [1])).toBe(true);
    expect(facts.retract('p', [1])).toBe(true);
    expect(facts.retract('p', [1])).toBe(false);
    expect(facts.facts()).toEqual([]);
  });

  it('a re-fetch replaces the facts of the previous fetch with the same key', () => {
    const facts = createFactStore({ clock: createFakeClock() });
    facts.recordFetch({ key: 'get{"id":1}', tool: 'get', args: { id: 1 } }, [{ predicate: 'status', args: [1, 'open'] }]);
    facts.recordFetch({ key: 'get{"id":1}', tool: 'get', args: { id: 1 } }, [{ predicate: 'status', args: [1, 'closed'] }]);
    expect(facts.facts().map((fact) => fact.args)).toEqual([[1, 'closed']]);
    expect(facts.fetchRecord('get{"id":1}')).toMatchObject({ tool: 'get', factIds: [expect.any(Number)] });
  });

  it('context bindings: bind, rebind (new version), unbind', () => {
    const facts = createFactStore({ clock: createFakeClock() });
    const first = facts.bind('booking_of_interest', 'BK1');
    const second = facts.bind('booking_of_interest', 'BK2');
    expect(second.version).toBeGreaterThan(first.version);
    expect(facts.contexts()).toEqual({ booking_of_interest: 'BK2' });
    expect(facts.unbind('booking_of_interest')).toBe(true);
    expect(facts.context('booking_of_interest')).toBeUndefined();
  });

  it('seeds the logged-in user and the date', () => {
    const facts = createFactStore({ clock: createFakeClock(), seed: { context: { current_user: 'mia_li_3818', today: '2024-05-15' }, facts: [{ predicate: 'member', args: ['mia_li_3818', 'gold'] }] } });
    expect(facts.contexts()).toEqual({ current_user: 'mia_li_3818', today: '2024-05-15' });
    expect(facts.facts()[0]).toMatchObject({ source: 'seed' });
  });

  describe('derived results', () => {
    const setup = () => {
      const clock = createFakeClock();
      const facts = createFactStore({ clock });
      facts.assert('status', ['BK1', 'cancelled'], { ttlMs: 60_000 });
      const [fact] = facts.match('status', ['BK1', 'cancelled']);
      facts.bind('booking_of_interest', 'BK1');
      const version = facts.context('booking_of_interest')!.version;
      facts.recordDerived({ predicate: 'refundable', args: ['BK1'], dependsOn: { factIds: [fact!.id], contexts: { booking_of_interest: version }, negated: {} } });
      return { clock, facts };
    };

    it('hold while what they used holds', () => {
      const { facts } = setup();
      expect(facts.derivedFact('refundable', ['BK1'])).toBeDefined();
      expect(facts.summarize()).toContain('Derived: refundable("BK1")');
    });

    it('become invalid once a base fact they used expires', () => {
      const { clock, facts } = setup();
      clock.advance(60_000);
      expect(facts.derivedFact('refundable', ['BK1'])).toBeUndefined();
      expect(facts.derived()).toEqual([]);
      expect(facts.summarize()).not.toContain('Derived');
    });

    it('become invalid once a context they read is rebound, even to the same value', () => {
      const { facts } = setup();
      facts.bind('booking_of_interest', 'BK1');
      expect(facts.derived()).toEqual([]);
    });

    it('that relied on an absence become invalid when that predicate changes', () => {
      const facts = createFactStore({ clock: createFakeClock() });
      facts.recordDerived({ predicate: 'clean', args: ['BK1'], dependsOn: { factIds: [], contexts: {}, negated: { flagged: facts.predicateVersion('flagged') } } });
      expect(facts.derived()).toHaveLength(1);
      facts.assert('flagged', ['BK1']);
      expect(facts.derived()).toEqual([]);
    });
  });

  it('knows which values are established (strict mode), expired ones not', () => {
    const clock = createFakeClock();
    const facts = createFactStore({ clock });
    facts.assert('reservation', ['mia', 'NO6JO3'], { ttlMs: 1000 });
    facts.bind('current_user', 'mia');
    expect(facts.isEstablishedValue('NO6JO3')).toBe(true);
    expect(facts.isEstablishedValue('mia')).toBe(true);
    expect(facts.isEstablishedValue('ZZZ999')).toBe(false);
    clock.advance(1000);
    expect(facts.isEstablishedValue('NO6JO3')).toBe(false);
  });

  it('summarize() is short, sorted and stable: no timestamps, same facts same text', () => {
    const clock = createFakeClock();
    const a = createFactStore({ clock });
    const b = createFactStore({ clock });
    a.assert('status', ['BK1', 'open'], { ttlMs: 60_000 });
    a.assert('member', ['mia', 'gold']);
    a.bind('booking_of_interest', 'BK1');
    b.bind('booking_of_interest', 'BK1');
    clock.advance(5000);
    b.assert('member', ['mia', 'gold'], { source: 'seed' });
    b.assert('status', ['BK1', 'open'], { ttlMs: 99_000 });
    expect(a.summarize()).toBe(b.summarize());
    expect(a.summarize()).toBe('Context: booking_of_interest = "BK1"\nFacts (2):\n  member(mia, gold)\n  status("BK1", open)');
    expect(createFactStore({ clock }).summarize()).toBe('Context: (none bound)\nFacts: (none)');
  });

  it('summarize() follows every change to the store, and the expiry of each fact', () => {
    const clock = createFakeClock();
    const facts = createFactStore({ clock });
    facts.assert('status', ['BK1', 'open'], { ttlMs: 60_000 });
    facts.assert('member', ['mia', 'gold'], { ttlMs: 120_000 });
    expect(facts.summarize()).toContain('Facts (2)');
    clock.advance(60_000);
    expect(facts.summarize()).toBe('Context: (none bound)\nFacts (1):\n  member(mia, gold)');
    facts.bind('current_user', 'mia');
    expect(facts.summarize()).toContain('current_user = mia');
    facts.retract('member', ['mia', 'gold']);
    expect(facts.summarize()).toBe('Context: current_user = mia\nFacts: (none)');
    facts.assert('n', [1]);
    facts.assert('n', [2]);
    expect(facts.summarize({ maxFacts: 1 })).toContain('... and 1 more');
    expect(facts.summarize()).not.toContain('more');
  });

  it('summarize() caps the facts it lists', () => {
    const facts = createFactStore({ clock: createFakeClock() });
    for (let index = 0; index < 100; index++) facts.assert('n', [index]);
    const summary = facts.summarize({ maxFacts: 3 });
    expect(summary.split('\n')).toHaveLength(6);
    expect(summary).toContain('... and 97 more');
  });

  it('snapshots are plain JSON and restore to the same store', () => {
    const clock = createFakeClock();
    const facts = createFactStore({ clock });
    facts.assert('p', ['a', 1, true, null, ['x'], { k: 'v' }], { ttlMs: 5000, source: 'user' });
    facts.recordFetch({ key: 'get{"id":1}', tool: 'get', args: { id: 1 } }, [{ predicate: 'q', args: [1, 'ok'], ttlMs: 1000 }]);
    facts.bind('booking_of_interest', 'BK1');
    const snapshot = JSON.parse(JSON.stringify(facts.toJSON())) as FactStoreSnapshot;
    expect(snapshot.format).toBe('panoptes.facts/1');
    const restored = createFactStore({ clock, snapshot });
    expect(restored.toJSON()).toEqual(facts.toJSON());
    expect(restored.summarize()).toBe(facts.summarize());
    expect(restored.fetchRecord('get{"id":1}')!.factIds).toHaveLength(1);
    expect(restored.bind('booking_of_interest', 'BK2').version).toBeGreaterThan(facts.context('booking_of_interest')!.version);
  });

  it('rejects bad options at construction', () => {
    expect(() => createFactStore({ clock: { now: 'not a function' } as never })).toThrow(InvalidOptionError);
    expect(() => createFactStore({ clock: createFakeClock(), snapshot: { format: 'other' } as never })).toThrow(/format/);
    expect(() => createFactStore({ clock: createFakeClock() }).assert('p', [], { ttlMs: -1 })).toThrow(InvalidOptionError);
  });

  it('formatValue writes values the model can paste into a query', () => {
    expect(formatValue('business')).toBe('business');
    expect(formatValue('ABC123')).toBe('"ABC123"');
    expect(formatValue('not')).toBe('"not"');
    expect(formatValue(3)).toBe('3');
    expect(formatValue({ flight_number: 'HAT001' })).toBe('{flight_number: "HAT001"}');
  });

  it('match() agrees with a linear scan, whatever the mix of value types (property)', () => {
    // Numbers and their strings, a list and the string of its JSON, null and false: equal only when they are.
    const value = fc.constantFrom<Value>(0, 1, '1', 'a', '[1]', null, false, 'false', [1], ['a'], { k: 1 });
    fc.assert(
      fc.property(fc.array(fc.tuple(value, value), { maxLength: 30 }), fc.option(value, { nil: undefined }), fc.option(value, { nil: undefined }), (rows, first, second) => {
        const facts = createFactStore({ clock: createFakeClock() });
        for (const row of rows) facts.assert('r', row);
        const pattern = [first, second];
        const same = (a: Value, b: Value | undefined) => b === undefined || JSON.stringify(a) === JSON.stringify(b);
        const expected = [...new Map(rows.map((row) => [JSON.stringify(row), row])).values()].filter((row) => same(row[0], pattern[0]) && same(row[1], pattern[1]));
        expect(facts.match('r', pattern).map((fact) => JSON.stringify(fact.args)).sort()).toEqual(expected.map((row) => JSON.stringify(row)).sort());
      }),
    );
  });

});
