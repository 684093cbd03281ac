import { describe, expect, it } from 'vitest';
import { createFactStore, MAX_READ_VALUE_LENGTH } from '../../src/facts/index.js';
import { fetchKey } from '../../src/guards/index.js';
import { createFakeClock } from '../../src/testing/index.js';

describe('FactStore.invalidateFetch (issue 14)', () => {
  it('drops the facts of one call, and the conclusions drawn from them, leaving every other call alone', () => {
    const facts = createFactStore({ clock: createFakeClock() });
    const a = fetchKey('get_reservation', { id: 'A' });
    const b = fetchKey('get_reservation', { id: 'B' });
    facts.recordFetch({ key: a, tool: 'get_reservation', args: { id: 'A' } }, [{ predicate: 'cabin', args: ['A', 'economy'], ttlMs: 60_000 }]);
    facts.recordFetch({ key: b, tool: 'get_reservation', args: { id: 'B' } }, [{ predicate: 'cabin', args: ['B', 'business'], ttlMs: 60_000 }]);
    const [cabinA] = facts.match('cabin', ['A', undefined]);
    facts.recordDerived({ predicate: 'upgradable', args: ['A'], dependsOn: { factIds: [cabinA!.id], contexts: {}, negated: {} } });
    const version = facts.version;

    expect(facts.invalidateFetch(a)).toBe(true);
    expect(facts.facts('cabin').map((fact) => fact.args)).toEqual([['B', 'business']]);
    expect(facts.fetchRecord(a)).toBeUndefined();
    expect(facts.fetchRecord(b)).toBeDefined();
    expect(facts.derivedFact('upgradable', ['A'])).toBeUndefined();
    expect(facts.version).toBeGreaterThan(version);
    expect(facts.invalidateFetch(a)).toBe(false); // nothing left to drop
  });

  it('keeps a fact the same call no longer owns (a later fetch replaced it)', () => {
    const facts = createFactStore({ clock: createFakeClock() });
    const key = fetchKey('get_reservation', { id: 'A' });
    facts.recordFetch({ key, tool: 'get_reservation', args: { id: 'A' } }, [{ predicate: 'cabin', args: ['A', 'economy'] }]);
    facts.assert('cabin', ['A', 'economy'], { source: 'seed' }); // same fact, now the seed's
    facts.invalidateFetch(key);
    expect(facts.facts('cabin')).toEqual([expect.objectContaining({ args: ['A', 'economy'], source: 'seed' })]);
  });
});

describe('FactStore.noteReadValues (issue 14)', () => {
  it('makes read values established for strict mode, skips long strings, and survives a snapshot', () => {
    const facts = createFactStore({ clock: createFakeClock() });
    expect(facts.isEstablishedValue('HAT158')).toBe(false);
    facts.noteReadValues(['HAT158', 42, 'x'.repeat(MAX_READ_VALUE_LENGTH + 1)]);
    expect(facts.isEstablishedValue('HAT158')).toBe(true);
    expect(facts.isEstablishedValue(42)).toBe(true);
    expect(facts.isEstablishedValue('42')).toBe(false); // a number read is not the string a model writes
    expect(facts.isEstablishedValue('x'.repeat(MAX_READ_VALUE_LENGTH + 1))).toBe(false);
    const restored = createFactStore({ clock: createFakeClock(), snapshot: facts.toJSON() });
    expect(restored.isEstablishedValue('HAT158')).toBe(true);
    expect(restored.isEstablishedValue(42)).toBe(true);
  });
});

describe('FactStore.noteUserWords (issue 14)', () => {
  it("finds a value in the user's messages, case aside; keeps each message once and only the latest ones", async () => {
    const { MAX_USER_MESSAGES } = await import('../../src/facts/index.js');
    const facts = createFactStore({ clock: createFakeClock() });
    facts.noteUserWords(['Book me Denver DEN to Charlotte CLT.', 'Book me Denver DEN to Charlotte CLT.']);
    expect(facts.isUserWord('den')).toBe(true);
    expect(facts.isUserWord('LAX')).toBe(false);
    expect(facts.isUserWord('')).toBe(false);
    expect(createFactStore({ clock: createFakeClock(), snapshot: facts.toJSON() }).isUserWord('CLT')).toBe(true);
    expect(facts.toJSON().userWords).toHaveLength(1);
    facts.noteUserWords(Array.from({ length: MAX_USER_MESSAGES }, (_, index) => `message ${index}`));
    expect(facts.isUserWord('DEN')).toBe(false); // the oldest message went first
    expect(facts.toJSON().userWords).toHaveLength(MAX_USER_MESSAGES);
  });
});
