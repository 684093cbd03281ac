/**
 * The signal that aborts an upstream request when its client goes away, so a model is not left generating for no one.
 * @module
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

/**
 * An EventEmitter that emits `abort`, which undici takes as a signal: an AbortController (an EventTarget) costs several
 * times more to make and to listen to, on every request, for an abort that rarely comes.
 */
export class ClientGone extends EventEmitter {
  aborted = false;
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

/** Aborts the upstream request when the client's connection closes before its answer was sent. */
export function abortOnClientGone(response: ServerResponse): ClientGone {
  const gone = new ClientGone();
  response.once('close', () => {
    if (!response.writableFinished) gone.abort();
  });
  return gone;
}
