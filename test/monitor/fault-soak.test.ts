/**
 * Issue 13 soak: a store, an embedder and a listener that randomly throw, reject, hang or return junk, 10,000 calls
 * over 100 sessions. Every call settles, every fault is counted as a miss, and every session the store never lost
 * ends with the trace of the same conversation run without faults.
 */
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore, createMonitor, type AssistantTurn, type Embedder, type Monitor, type MonitorSession, type SessionStore } from '../../src/index.js';
import { createFakeEmbedder } from '../../src/testing/index.js';
import { supportWorkflow } from './fixtures.js';

const SESSIONS = 100;
const TURNS = 40; // beforeModel + afterModel per turn, and beforeTool for a tool call: ~10,000 calls in all
const BUDGET_MS = 5;
/** Far past any budget: a call still pending then is stuck, not slow. */
const STUCK_MS = 2000;

type Fault = 'none' | 'throw' | 'reject' | 'hang' | 'junk';

/** A seeded source of faults (mulberry32), so a failing run can be replayed. */
function faults(seed: number, rate: number) {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const kinds: Fault[] = ['throw', 'reject', 'hang', 'junk'];
  return (): Fault => {
    const value = random();
    return value < rate ? kinds[Math.floor((value / rate) * kinds.length)]! : 'none';
  };
}

const never = <T>() => new Promise<T>(() => {});

/** The memory store behind a faulty front: each fault it injects is one miss the monitor should count. */
function faultyStore(fault: () => Fault) {
  const memory = createMemorySessionStore<MonitorSession>();
  const lost = new Set<string>();
  let injected = 0;
  const store: SessionStore<MonitorSession> = {
    get(id) {
      const kind = fault();
      if (kind === 'none') return memory.get(id);
      injected++;
      lost.add(id);
      if (kind === 'throw') throw new Error('store down');
      if (kind === 'reject') return Promise.reject(new Error('store down'));
      if (kind === 'hang') return never();
      return { not: 'a session' } as unknown as MonitorSession;
    },
    set(id, value) {
      const kind = fault();
      if (kind === 'none' || kind === 'junk') return memory.set(id, value);
      injected++;
      lost.add(id);
      if (kind === 'throw') throw new Error('store down');
      if (kind === 'reject') return Promise.reject(new Error('store down'));
      return never();
    },
    delete: (id) => memory.delete(id),
  };
  return { store, lost, injected: () => injected };
}

/** An embedder whose queries fail at random; its vectors never reach an exemplar, so a fault changes no state. */
function faultyEmbedder(fault: () => Fault) {
  const base = createFakeEmbedder();
  let injected = 0;
  const embedder: Embedder = {
    embedDocuments: (texts) => base.embedDocuments(texts),
    embedQuery(text) {
      const kind = fault();
      if (kind === 'none') return base.embedQuery(text);
      injected++;
      if (kind === 'throw') throw new Error('model crashed');
      if (kind === 'reject') return Promise.reject(new Error('model crashed'));
      if (kind === 'hang') return never();
      return Promise.resolve([Number.NaN, 0, 0]);
    },
  };
  return { embedder, injected: () => injected };
}

/** One session's conversation: tool calls, pattern texts and free text that goes to the embedder. */
function script(session: number): AssistantTurn[] {
  return Array.from({ length: TURNS }, (_, turn): AssistantTurn => {
    const id = `s${session}-t${turn}`;
    switch ((session + turn) % 5) {
      case 0:
        return { content: '', toolCalls: [{ id, name: 'verify_identity', args: {} }] };
      case 1:
        return { content: '', toolCalls: [{ id, name: 'issue_refund', args: {} }] };
      case 2:
        return { content: 'Could you tell me more?', toolCalls: [] };
      case 3:
        return { content: `Free text number ${turn} of session ${session}.`, toolCalls: [] };
      default:
        return { content: 'Is there anything else I can help with?', toolCalls: [] };
    }
  });
}

/** Runs a session's script; every call must settle well before STUCK_MS. */
async function run(monitor: Monitor, session: number): Promise<void> {
  const settle = <T>(call: Promise<T>, what: string) =>
    Promise.race([call, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} of session ${session} is stuck`)), STUCK_MS).unref())]);
  const id = `session-${session}`;
  for (const turn of script(session)) {
    await settle(monitor.beforeModel(id, { messages: [{ role: 'user', content: 'go on' }] }), 'beforeModel');
    await settle(monitor.afterModel(id, turn), 'afterModel');
    for (const call of turn.toolCalls) await settle(monitor.beforeTool(id, call), 'beforeTool');
  }
}

describe('fault injection soak', () => {
  it('10,000 calls over 100 sessions: none stuck, every fault counted, unlost sessions as without faults', async () => {
    const store = faultyStore(faults(1, 0.003));
    const embedding = faultyEmbedder(faults(2, 0.1));
    const listenerFault = faults(3, 0.2);
    let listenerFaults = 0;
    const monitor = createMonitor({ workflow: supportWorkflow, store: store.store, embeddings: embedding.embedder, storeTimeoutMs: BUDGET_MS, embeddingTimeoutMs: BUDGET_MS, logger: { warn: () => {} } });
    await monitor.ready();
    monitor.on('state-change', () => {
      const kind = listenerFault();
      if (kind === 'none') return undefined;
      if (kind === 'hang') return never();
      listenerFaults++;
      if (kind === 'throw') throw new Error('listener broken');
      return Promise.reject(new Error('listener down')); // reject and junk alike: an async listener that fails
    });
    const reference = createMonitor({ workflow: supportWorkflow, embeddings: createFakeEmbedder() });

    await Promise.all(Array.from({ length: SESSIONS }, (_, session) => Promise.all([run(monitor, session), run(reference, session)])));
    await new Promise((resolve) => setImmediate(resolve)); // listener rejections are counted a tick later

    // A listener that never settles holds nothing up (listeners are not awaited) and is no miss; the others are.
    expect(monitor.misses().listener).toBe(listenerFaults);
    expect(monitor.misses().store).toBe(store.injected());
    expect(monitor.misses().embedding).toBe(embedding.injected());
    expect(store.injected()).toBeGreaterThan(0);
    expect(embedding.injected()).toBeGreaterThan(0);

    let compared = 0;
    for (let session = 0; session < SESSIONS; session++) {
      const id = `session-${session}`;
      if (store.lost.has(id)) continue;
      compared++;
      const [faulty, clean] = [await monitor.report(id), await reference.report(id)];
      expect(faulty!.trace, id).toEqual(clean!.trace);
      expect(faulty!.verdicts, id).toEqual(clean!.verdicts);
      expect(faulty!.refusals.map((refusal) => refusal.state), id).toEqual(clean!.refusals.map((refusal) => refusal.state));
    }
    expect(compared).toBeGreaterThan(0);
  });
});
