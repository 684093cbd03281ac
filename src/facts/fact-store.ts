import { systemClock, type Clock } from '../clock/index.js';
import { InvalidOptionError } from '../errors/index.js';
import type { Value } from '../rules/index.js';
import { fitsPattern, formatFact, valueKey, type ContextBinding, type Fact, type FactSource } from './fact.js';
import { renderSummary, type SummarizeOptions } from './summarize.js';
import { createProvenanceLog, type ProvenanceLog, type ProvenanceLogOptions, type ProvenanceSnapshot } from './provenance/index.js';
import { boundedExchange, type Exchange } from './exchange.js';

/** A fact inside the store: a stable id, plus the fetch that produced it when it came from a data tool. */
export interface StoredFact extends Fact {
  readonly id: number;
  /** The fetch key (tool and arguments) this fact came from. */
  readonly fetch?: string;
  /** Whether the fetch fanned out (a list result), so several values for the same inputs are expected, not a contradiction. */
  readonly multiple?: boolean;
}

/** A remembered data-tool call: which tool, with which arguments, when, and which facts it produced. */
export interface FetchRecord {
  key: string;
  tool: string;
  args: Record<string, Value>;
  fetchedAt: number;
  factIds: readonly number[];
  /** Predicates whose JSON paths did not fit the result, with the reason: re-reported until the fetch expires. */
  errors?: Readonly<Record<string, string>>;
}

/**
 * What a derived conclusion rests on. It stops holding as soon as any of these changes: a fact expires or is
 * replaced, a context variable is rebound, a predicate it relied on the absence of gains or loses a fact.
 */
export interface DerivedDependencies {
  factIds: readonly number[];
  contexts: Readonly<Record<string, number>>;
  /** Predicates read under `not`, with the store's version of each at the time. */
  negated: Readonly<Record<string, number>>;
}

/** A conclusion the solver proved, kept while everything it rests on still holds. */
export interface DerivedFact {
  predicate: string;
  args: readonly Value[];
  derivedAt: number;
  dependsOn: DerivedDependencies;
  /** The proof, as the solver returned it; opaque to the store. */
  derivation?: unknown;
}

/** What to establish at the start of a session: the logged-in user, today's date, anything known up front. */
export interface FactSeed {
  context?: Record<string, Value>;
  facts?: Array<{ predicate: string; args: readonly Value[]; ttlMs?: number }>;
}

/** A fact store as plain JSON, for persistence between turns or processes. */
export interface FactStoreSnapshot {
  format: 'panoptes.facts/1';
  facts: Array<Fact & { fetch?: string; multiple?: boolean }>;
  fetches: Array<Omit<FetchRecord, 'factIds'>>;
  context: Record<string, ContextBinding>;
  /** Values read in tool results ({@link FactStore.noteReadValues}); absent in snapshots of older versions. */
  readValues?: Array<string | number>;
  /** The user's messages ({@link FactStore.noteUserWords}); absent in snapshots of older versions. */
  userWords?: string[];
  /** Where values came from ({@link FactStore.provenance}); absent in snapshots of older versions. */
  provenance?: ProvenanceSnapshot;
  /** The conversation's last exchange ({@link FactStore.noteExchange}); absent in snapshots of older versions. */
  exchange?: Exchange;
}

/** Most user messages {@link FactStore.noteUserWords} keeps (the latest), and the longest kept whole. */
export const MAX_USER_MESSAGES = 200;
export const MAX_USER_MESSAGE_LENGTH = 4_096;

/** Most values {@link FactStore.noteReadValues} keeps; later ones are not kept (strict mode then asks for a fact). */
export const MAX_READ_VALUES = 20_000;
/** Longer strings are not kept as read values: ids and codes are short, prose is not an id. */
export const MAX_READ_VALUE_LENGTH = 256;

/** Options of {@link createFactStore}. */
export interface FactStoreOptions {
  /** Where time comes from; expiry is judged against it. @default systemClock */
  clock?: Clock;
  /** Facts and context bindings to start with. */
  seed?: FactSeed;
  /** A snapshot from `toJSON()` to restore; applied before `seed`. */
  snapshot?: FactStoreSnapshot;
  /** Bounds and id shapes of the session's provenance log (where each value came from). */
  provenance?: Omit<ProvenanceLogOptions, 'now'>;
}

/**
 * The session's working memory: ground facts with their source and expiry, context bindings, and conclusions
 * derived from them. The solver is stateless; this is what it remembers between calls.
 */
export interface FactStore {
  readonly clock: Clock;
  /**
   * Where values came from: every tool result the sentinel is told of, the user's messages and the system prompt,
   * with their trust. Lives as long as the store, and travels in `toJSON()` snapshots.
   */
  readonly provenance: ProvenanceLog;
  /** Increases on every change; two equal versions mean nothing changed in between. */
  readonly version: number;
  /** Adds (or refreshes) a fact. `ttlMs` makes it expire; without it the fact holds for the session. */
  assert(predicate: string, args: readonly Value[], options?: { source?: FactSource; ttlMs?: number }): Fact;
  /** Removes a fact; true when it was there. */
  retract(predicate: string, args: readonly Value[]): boolean;
  /** Whether a fact holds now (present and not expired). */
  has(predicate: string, args: readonly Value[]): boolean;
  /** The facts that hold now, optionally of one predicate, in the order they were established. */
  facts(predicate?: string): Fact[];
  /**
   * Facts of `predicate` that hold now and equal `pattern` where the pattern has a value (`undefined` matches
   * anything). Indexed on the first argument, so lookups stay cheap as the store grows.
   */
  match(predicate: string, pattern: ReadonlyArray<Value | undefined>): StoredFact[];
  /** Whether the fact with this id is still in the store and unexpired (for derivation dependencies). */
  isValid(factId: number): boolean;
  /** The version of one predicate's facts, for conclusions that relied on a fact's absence. */
  predicateVersion(predicate: string): number;
  /** Binds a context variable. Rebinding invalidates every derived result that read the old binding. */
  bind(name: string, value: Value, options?: { source?: FactSource }): ContextBinding;
  /** Removes a context binding; true when it was bound. */
  unbind(name: string): boolean;
  /** A context variable's binding, if bound. */
  context(name: string): ContextBinding | undefined;
  /** Every context binding's value, by name. */
  contexts(): Record<string, Value>;
  /** Adds the facts and bindings of a seed. */
  seed(seed: FactSeed): void;
  /**
   * Records a data-tool call and the facts extracted from its result, replacing the facts of any earlier call with
   * the same key: a re-fetch supersedes, it never accumulates.
   */
  recordFetch(
    record: { key: string; tool: string; args: Record<string, Value> },
    facts: Array<{ predicate: string; args: readonly Value[]; ttlMs?: number; multiple?: boolean }>,
    errors?: Record<string, string>,
  ): void;
  /** The last recorded call with this key, if any (fresh or not: the caller knows each predicate's TTL). */
  fetchRecord(key: string): FetchRecord | undefined;
  /**
   * Forgets a data-tool call and the facts it produced, because a write changed what it would return: the next proof
   * that needs them calls the tool again, and every derived conclusion that rested on them stops holding. Costs the
   * number of facts of that call, whatever the size of the store. True when there was such a call.
   */
  invalidateFetch(key: string): boolean;
  /**
   * Remembers strings and numbers seen in a tool result the agent or the sentinel read in this conversation, so
   * strict mode accepts them as arguments (an id the agent read is not made up). Kept for the session, up to
   * {@link MAX_READ_VALUES}; strings longer than {@link MAX_READ_VALUE_LENGTH} are skipped.
   */
  noteReadValues(values: Iterable<string | number>): void;
  /**
   * Remembers the user's own messages in this conversation (adapters pass the conversation's user messages; a
   * message seen before is not kept twice), for strict mode's `given` parameters. The latest
   * {@link MAX_USER_MESSAGES} are kept, each cut to {@link MAX_USER_MESSAGE_LENGTH} characters.
   */
  noteUserWords(messages: Iterable<string>): void;
  /** Whether the user said this value (case aside) in a message {@link FactStore.noteUserWords} kept. */
  isUserWord(value: string | number): boolean;
  /**
   * Remembers the conversation's last exchange (the user's latest message and the assistant's words it answered).
   * A new user message replaces it; the same one again keeps what it was used for.
   */
  noteExchange(exchange: Exchange): void;
  /** The last exchange noted, if any. */
  exchange(): Exchange | undefined;
  /** Marks the last exchange's yes as spent on one call (a confirmation reference): it confirms no other. */
  useExchange(id: string, ref: string): void;
  /** Remembers a derived conclusion and what it rests on. */
  recordDerived(derived: Omit<DerivedFact, 'derivedAt'>): void;
  /** A derived conclusion that still holds, if any. */
  derivedFact(predicate: string, args: readonly Value[]): DerivedFact | undefined;
  /** Every derived conclusion that still holds. */
  derived(): DerivedFact[];
  /** Whether a value appears in a fact that holds now or in a context binding: what strict mode accepts. */
  isEstablishedValue(value: Value): boolean;
  /** Drops expired facts and invalid derived results; lookups ignore them anyway, this frees the memory. */
  prune(): void;
  /** A short, stable text of the context bindings and facts, for the system prompt. */
  summarize(options?: SummarizeOptions): string;
  /** The store as plain JSON. */
  toJSON(): FactStoreSnapshot;
}

const ANY_FIRST = Symbol('all facts of the predicate');

type BucketKey = string | number | boolean | null | typeof ANY_FIRST;

/** Primitives index as themselves (no key string to build on every lookup); lists and objects by canonical JSON. */
function bucketKey(value: Value): BucketKey {
  return typeof value === 'object' && value !== null ? valueKey(value) : value;
}

/**
 * Creates a fact store.
 * @param options The clock that judges expiry, and optionally a seed and a snapshot to restore.
 * @throws InvalidOptionError when the clock is missing or the snapshot is not one this version wrote.
 * @example
 * const facts = createFactStore({ clock, seed: { context: { current_user: 'mia_li_3818', today: '2024-05-15' } } });
 * facts.assert('membership', ['mia_li_3818', 'gold'], { source: 'tool:get_user_details', ttlMs: 60_000 });
 * facts.summarize(); // "Context: current_user = mia_li_3818 ..."
 */
export function createFactStore({ clock = systemClock, seed, snapshot, provenance: provenanceOptions }: FactStoreOptions = {}): FactStore {
  if (typeof clock?.now !== 'function') throw new InvalidOptionError({ parameter: 'clock', value: clock, fix: 'Pass a Clock, e.g. systemClock or createFakeClock().' });
  if (snapshot !== undefined && snapshot.format !== 'panoptes.facts/1') {
    throw new InvalidOptionError({ parameter: 'snapshot', value: (snapshot as { format?: unknown }).format, fix: "Pass a snapshot from FactStore.toJSON() (format 'panoptes.facts/1')." });
  }

  let nextId = 1;
  let nextContextVersion = 1;
  let version = 0;
  const byKey = new Map<string, StoredFact>();
  const byId = new Map<number, StoredFact>();
  // predicate -> first-argument key -> facts; ANY_FIRST holds them all, in insertion order.
  const index = new Map<string, Map<BucketKey, Map<number, StoredFact>>>();
  const predicateVersions = new Map<string, number>();
  const values = new Map<string, Set<number>>();
  const fetches = new Map<string, FetchRecord>();
  const contextBindings = new Map<string, ContextBinding>();
  const derivedFacts = new Map<string, DerivedFact>();
  const readValues = new Set<string>();
  // Insertion-ordered, so the oldest message is the first to go.
  const userWords = new Map<string, string>();
  let lastExchange: Exchange | undefined;
  let summary: { version: number; maxFacts: number | undefined; validUntil: number; text: string } | undefined;

  const factKey = (predicate: string, args: readonly Value[]) => `${predicate}\u0000${args.map(valueKey).join('\u0000')}`;
  const holds = (fact: StoredFact, now: number) => fact.expiresAt === undefined || fact.expiresAt > now;
  const touch = (predicate: string) => {
    version++;
    predicateVersions.set(predicate, (predicateVersions.get(predicate) ?? 0) + 1);
  };

  const remove = (fact: StoredFact) => {
    byKey.delete(factKey(fact.predicate, fact.args));
    byId.delete(fact.id);
    const buckets = index.get(fact.predicate)!;
    buckets.get(ANY_FIRST)!.delete(fact.id);
    if (fact.args.length > 0) buckets.get(bucketKey(fact.args[0]!))?.delete(fact.id);
    for (const arg of fact.args) values.get(valueKey(arg))?.delete(fact.id);
    touch(fact.predicate);
  };

  const add = (fact: Omit<StoredFact, 'id'>): StoredFact => {
    const key = factKey(fact.predicate, fact.args);
    const existing = byKey.get(key);
    if (existing) remove(existing);
    const stored: StoredFact = { ...fact, args: Object.freeze([...fact.args]), id: nextId++ };
    byKey.set(key, stored);
    byId.set(stored.id, stored);
    let buckets = index.get(stored.predicate);
    if (!buckets) index.set(stored.predicate, (buckets = new Map([[ANY_FIRST, new Map()]])));
    buckets.get(ANY_FIRST)!.set(stored.id, stored);
    if (stored.args.length > 0) {
      const first = bucketKey(stored.args[0]!);
      let bucket = buckets.get(first);
      if (!bucket) buckets.set(first, (bucket = new Map()));
      bucket.set(stored.id, stored);
    }
    for (const arg of stored.args) {
      if (typeof arg === 'object' && arg !== null) continue;
      const keyOfValue = valueKey(arg);
      let ids = values.get(keyOfValue);
      if (!ids) values.set(keyOfValue, (ids = new Set()));
      ids.add(stored.id);
    }
    touch(stored.predicate);
    return stored;
  };

  const publicFact = (fact: StoredFact): Fact => ({
    predicate: fact.predicate,
    args: fact.args,
    source: fact.source,
    establishedAt: fact.establishedAt,
    ...(fact.expiresAt !== undefined ? { expiresAt: fact.expiresAt } : {}),
  });

  const isDerivedValid = (derived: DerivedFact): boolean => {
    const now = clock.now();
    for (const id of derived.dependsOn.factIds) {
      const fact = byId.get(id);
      if (!fact || !holds(fact, now)) return false;
    }
    for (const [name, contextVersion] of Object.entries(derived.dependsOn.contexts)) {
      if (contextBindings.get(name)?.version !== contextVersion) return false;
    }
    for (const [predicate, predicateVersion] of Object.entries(derived.dependsOn.negated)) {
      if ((predicateVersions.get(predicate) ?? 0) !== predicateVersion) return false;
    }
    return true;
  };

  const provenance = createProvenanceLog({ ...provenanceOptions, now: () => clock.now() }, snapshot?.provenance);

  const store: FactStore = {
    clock,
    provenance,
    get version() {
      return version;
    },
    assert(predicate, args, { source = 'asserted', ttlMs } = {}) {
      if (ttlMs !== undefined && !(ttlMs > 0)) throw new InvalidOptionError({ parameter: 'ttlMs', value: ttlMs, fix: 'Pass a positive number of milliseconds, or omit it for a fact that lasts the session.' });
      const now = clock.now();
      return publicFact(add({ predicate, args, source, establishedAt: now, ...(ttlMs !== undefined ? { expiresAt: now + ttlMs } : {}) }));
    },
    retract(predicate, args) {
      const existing = byKey.get(factKey(predicate, args));
      if (!existing) return false;
      remove(existing);
      return true;
    },
    has(predicate, args) {
      const fact = byKey.get(factKey(predicate, args));
      return fact !== undefined && holds(fact, clock.now());
    },
    facts(predicate) {
      const now = clock.now();
      const all = predicate === undefined ? [...byId.values()] : [...(index.get(predicate)?.get(ANY_FIRST)?.values() ?? [])];
      return all.filter((fact) => holds(fact, now)).map(publicFact);
    },
    match(predicate, pattern) {
      const buckets = index.get(predicate);
      if (!buckets) return [];
      const first = pattern[0];
      const bucket = buckets.get(first === undefined ? ANY_FIRST : bucketKey(first));
      if (!bucket) return [];
      const now = clock.now();
      const found: StoredFact[] = [];
      // Every position is compared, the first too: a string can share a bucket with a list whose JSON it spells.
      for (const fact of bucket.values()) if (holds(fact, now) && fitsPattern(fact.args, pattern)) found.push(fact);
      return found;
    },
    isValid(factId) {
      const fact = byId.get(factId);
      return fact !== undefined && holds(fact, clock.now());
    },
    predicateVersion(predicate) {
      return predicateVersions.get(predicate) ?? 0;
    },
    bind(name, value, { source = 'model' } = {}) {
      const binding: ContextBinding = { value, version: nextContextVersion++, boundAt: clock.now(), source };
      contextBindings.set(name, binding);
      version++;
      return binding;
    },
    unbind(name) {
      const had = contextBindings.delete(name);
      if (had) version++;
      return had;
    },
    context(name) {
      return contextBindings.get(name);
    },
    contexts() {
      return Object.fromEntries([...contextBindings].map(([name, binding]) => [name, binding.value]));
    },
    seed({ context = {}, facts = [] }) {
      for (const [name, value] of Object.entries(context)) store.bind(name, value, { source: 'seed' });
      for (const fact of facts) store.assert(fact.predicate, fact.args, { source: 'seed', ...(fact.ttlMs !== undefined ? { ttlMs: fact.ttlMs } : {}) });
    },
    recordFetch({ key, tool, args }, facts, errors) {
      const previous = fetches.get(key);
      if (previous) {
        for (const id of previous.factIds) {
          const fact = byId.get(id);
          if (fact && fact.fetch === key) remove(fact);
        }
      }
      const now = clock.now();
      const ids = facts.map(
        (fact) =>
          add({
            predicate: fact.predicate,
            args: fact.args,
            source: `tool:${tool}`,
            establishedAt: now,
            fetch: key,
            ...(fact.multiple ? { multiple: true } : {}),
            ...(fact.ttlMs !== undefined ? { expiresAt: now + fact.ttlMs } : {}),
          }).id,
      );
      fetches.set(key, { key, tool, args, fetchedAt: now, factIds: ids, ...(errors && Object.keys(errors).length > 0 ? { errors } : {}) });
      version++;
    },
    fetchRecord(key) {
      return fetches.get(key);
    },
    invalidateFetch(key) {
      const record = fetches.get(key);
      if (!record) return false;
      for (const id of record.factIds) {
        const fact = byId.get(id);
        if (fact && fact.fetch === key) remove(fact);
      }
      fetches.delete(key);
      version++;
      return true;
    },
    noteReadValues(seen) {
      for (const value of seen) {
        if (readValues.size >= MAX_READ_VALUES) return;
        if (typeof value === 'string' ? value.length <= MAX_READ_VALUE_LENGTH : Number.isFinite(value)) readValues.add(valueKey(value));
      }
    },
    recordDerived(derived) {
      derivedFacts.set(factKey(derived.predicate, derived.args), { ...derived, derivedAt: clock.now() });
    },
    derivedFact(predicate, args) {
      const derived = derivedFacts.get(factKey(predicate, args));
      return derived !== undefined && isDerivedValid(derived) ? derived : undefined;
    },
    derived() {
      return [...derivedFacts.values()].filter(isDerivedValid);
    },
    noteUserWords(messages) {
      for (const message of messages) {
        if (typeof message !== 'string' || message === '') continue;
        const kept = message.slice(0, MAX_USER_MESSAGE_LENGTH);
        if (userWords.has(kept)) continue;
        userWords.set(kept, kept.toLowerCase());
        provenance.recordMessage('user', message);
        if (userWords.size > MAX_USER_MESSAGES) userWords.delete(userWords.keys().next().value!);
      }
    },
    isUserWord(value) {
      const wanted = String(value).toLowerCase();
      if (wanted === '') return false;
      for (const lower of userWords.values()) if (lower.includes(wanted)) return true;
      return false;
    },
    noteExchange(exchange) {
      if (lastExchange?.id === exchange.id) return;
      lastExchange = boundedExchange(exchange);
    },
    exchange() {
      return lastExchange;
    },
    useExchange(id, ref) {
      if (lastExchange?.id !== id) return;
      lastExchange = { ...lastExchange, usedBy: ref };
    },
    isEstablishedValue(value) {
      if (readValues.has(valueKey(value))) return true;
      for (const binding of contextBindings.values()) if (valueKey(binding.value) === valueKey(value)) return true;
      const ids = values.get(valueKey(value));
      if (!ids) return false;
      const now = clock.now();
      for (const id of ids) if (holds(byId.get(id)!, now)) return true;
      return false;
    },
    prune() {
      const now = clock.now();
      for (const fact of [...byId.values()]) if (!holds(fact, now)) remove(fact);
      for (const [key, derived] of [...derivedFacts]) if (!isDerivedValid(derived)) derivedFacts.delete(key);
    },
    summarize(options) {
      // Adapters put the summary in every model request; it only changes when the store does or a fact expires.
      const now = clock.now();
      const maxFacts = options?.maxFacts;
      if (summary && summary.version === version && summary.maxFacts === maxFacts && now < summary.validUntil) return summary.text;
      let validUntil = Number.POSITIVE_INFINITY;
      for (const fact of byId.values()) if (fact.expiresAt !== undefined && fact.expiresAt > now && fact.expiresAt < validUntil) validUntil = fact.expiresAt;
      const text = renderSummary(
        store.contexts(),
        store.facts(),
        store.derived().map((derived) => formatFact(derived.predicate, derived.args)),
        options,
      );
      summary = { version, maxFacts, validUntil, text };
      return text;
    },
    toJSON() {
      return {
        format: 'panoptes.facts/1',
        facts: [...byId.values()].map((fact) => ({ ...publicFact(fact), ...(fact.fetch ? { fetch: fact.fetch } : {}), ...(fact.multiple ? { multiple: true } : {}) })),
        fetches: [...fetches.values()].map(({ factIds: _factIds, ...record }) => record),
        context: Object.fromEntries(contextBindings),
        ...(userWords.size > 0 ? { userWords: [...userWords.keys()] } : {}),
        ...(provenance.stats.sources > 0 || provenance.overflowed ? { provenance: provenance.toJSON() } : {}),
        ...(lastExchange ? { exchange: lastExchange } : {}),
        ...(readValues.size > 0 ? { readValues: [...readValues].map((key) => (key.startsWith('s') ? key.slice(1) : Number(key.slice(1)))) } : {}),
      };
    },
  };

  if (snapshot) restore(snapshot);
  if (seed) store.seed(seed);
  return store;

  function restore(data: FactStoreSnapshot): void {
    for (const fact of data.facts) {
      add({
        predicate: fact.predicate,
        args: fact.args,
        source: fact.source,
        establishedAt: fact.establishedAt,
        ...(fact.expiresAt !== undefined ? { expiresAt: fact.expiresAt } : {}),
        ...(fact.fetch !== undefined ? { fetch: fact.fetch } : {}),
        ...(fact.multiple ? { multiple: true } : {}),
      });
    }
    for (const record of data.fetches) {
      const ids = [...byId.values()].filter((fact) => fact.fetch === record.key).map((fact) => fact.id);
      fetches.set(record.key, { ...record, factIds: ids });
    }
    for (const [name, binding] of Object.entries(data.context)) {
      contextBindings.set(name, binding);
      nextContextVersion = Math.max(nextContextVersion, binding.version + 1);
    }
    if (data.readValues) store.noteReadValues(data.readValues);
    if (data.userWords) store.noteUserWords(data.userWords);
    if (data.exchange) lastExchange = boundedExchange(data.exchange);
  }
}
