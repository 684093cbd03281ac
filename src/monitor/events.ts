import { isPromiseLike } from '../async/index.js';
import type { WorkflowEffect } from '../workflow/index.js';
import type { MonitorEvents } from './types.js';

type Listener<Name extends keyof MonitorEvents> = (payload: MonitorEvents[Name]) => unknown;

/**
 * A tiny typed emitter whose listeners cannot break the caller: a listener that throws, or returns a promise that
 * rejects (an `async` listener), is reported to `onError`. Listeners are not awaited: a slow one holds up nothing.
 */
export function createEmitter(onError: (error: unknown) => void) {
  const listeners = new Map<keyof MonitorEvents, Set<Listener<never>>>();
  function emit<Name extends keyof MonitorEvents>(event: Name, payload: MonitorEvents[Name]): void {
    const subscribed = listeners.get(event);
    if (!subscribed) return;
    for (const listener of subscribed) {
      try {
        const returned = (listener as Listener<Name>)(payload);
        if (isPromiseLike(returned)) Promise.resolve(returned).catch(onError);
      } catch (error) {
        onError(error);
      }
    }
  }
  return {
    on<Name extends keyof MonitorEvents>(event: Name, listener: Listener<Name>): () => void {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as Listener<never>);
      return () => set.delete(listener as Listener<never>);
    },
    /** Whether anyone listens to `event`, so a caller can skip building what it would carry. */
    has: (event: keyof MonitorEvents): boolean => (listeners.get(event)?.size ?? 0) > 0,
    emit,
    /** Emits the events that a transition's effects stand for. */
    emitEffects(sessionId: string, effects: readonly WorkflowEffect[]): void {
      if (listeners.size === 0) return;
      for (const effect of effects) {
        switch (effect.type) {
          case 'state-entered':
            emit('state-change', { sessionId, from: effect.from, to: effect.to, at: effect.at });
            break;
          case 'constraint-violated':
            emit('violation', { sessionId, violation: effect.violation });
            break;
          case 'deviation-recorded':
            emit('deviation', { sessionId, deviation: effect.deviation });
            break;
          case 'call-refused':
            emit('refusal', { sessionId, refusal: effect.refusal });
            break;
          case 'constraint-doomed':
            emit('doomed', { sessionId, constraint: effect.constraint, message: effect.message });
            break;
          default:
            break; // scheduled interventions are announced when applied; session-closed is the report itself
        }
      }
    },
  };
}
