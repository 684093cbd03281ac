import type { Monitor } from '../monitor/index.js';
import { sentinelFor, type SentinelSource } from './sentinel-sessions.js';
import { noteWorkflowStates } from './workflow-states.js';

/**
 * Makes the workflow's states facts of the rules: every state the monitor enters in a conversation is recorded in
 * that conversation's fact store as `said(State)`, so a rule can require that the agent said something before an
 * action (`requires said(offered_insurance) before book_reservation`). The adapters call it when given both a
 * monitor and a sentinel; call it yourself for a host of your own. Returns the function that stops it.
 * @example
 * const stop = connectWorkflowStates(monitor, sentinels);
 */
export function connectWorkflowStates(monitor: Pick<Monitor, 'on'>, sentinel: SentinelSource): () => void {
  const connected = connections.get(monitor);
  if (connected?.has(sentinel)) return () => undefined; // once per pair: two adapters over one monitor share it
  const stop = monitor.on('state-change', ({ sessionId, to }) => {
    try {
      noteWorkflowStates(sentinelFor(sentinel, sessionId).facts, [to]);
    } catch {
      // A sentinel per conversation needs the session id, which every state change has; nothing else can fail here.
    }
  });
  if (connected) connected.add(sentinel);
  else connections.set(monitor, new Set([sentinel]));
  return () => {
    stop();
    connections.get(monitor)?.delete(sentinel);
  };
}

const connections = new WeakMap<object, Set<SentinelSource>>();
