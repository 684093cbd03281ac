import { hasErrorCode, PanoptesError } from './panoptes-error.js';

/**
 * Thrown (as a rejected promise) by a call made on a monitor or sentinel after its `close()`: the object flushed what
 * it held and takes no more calls. Make a new one, or call `close()` only once the agent is done with it.
 */
export class ClosedError extends PanoptesError {
  /** What was closed: `monitor`, `sentinel` or `sentinel-sessions`. */
  readonly component: string;
  /** The method that was called, e.g. `afterModel`. */
  readonly method: string;

  constructor({ component, method }: { component: string; method: string }) {
    super('CLOSED', `${component}.${method}() was called after ${component}.close(): a closed ${component} takes no more calls. Create a new one, or close it only once the agent is done with it.`);
    this.name = 'ClosedError';
    this.component = component;
    this.method = method;
  }

  static override isInstance(value: unknown): value is ClosedError {
    return hasErrorCode(value, 'CLOSED');
  }
}
