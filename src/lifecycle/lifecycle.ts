import { metrics, trace } from '@opentelemetry/api';
import { isPromiseLike, TimedOut, within, type MaybePromise } from '../async/index.js';
import type { Timers } from '../clock/index.js';
import { ClosedError } from '../errors/index.js';

/** Budget of flushing the registered OpenTelemetry providers on `close()`, in milliseconds. */
export const TELEMETRY_FLUSH_TIMEOUT_MS = 5000;

/**
 * The open-then-closed life of a monitor or sentinel: calls made after `close()` reject with a {@link ClosedError};
 * `close()` waits for the calls in flight, then runs `flush` once. Closing twice gives the same promise.
 */
export function createLifecycle(component: string) {
  let closing: Promise<void> | undefined;
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(result: MaybePromise<T>): MaybePromise<T> => {
    if (!isPromiseLike(result)) return result;
    const running = Promise.resolve(result);
    inFlight.add(running);
    const forget = () => inFlight.delete(running);
    running.then(forget, forget);
    return running;
  };
  return {
    get closed(): boolean {
      return closing !== undefined;
    },
    /** Runs a call, or refuses it once closing started; a call still running is waited for by `close`. */
    run<T>(method: string, call: () => MaybePromise<T>): MaybePromise<T> {
      if (closing) return Promise.reject(new ClosedError({ component, method }));
      return track(call());
    },
    /**
     * Wraps each named method of `target` (in place) with `run`; the `synchronous` ones (which return no promise) throw
     * the `ClosedError` rather than reject with it.
     */
    guard<Target extends object>(target: Target, methods: ReadonlyArray<keyof Target & string>, synchronous: ReadonlyArray<keyof Target & string> = []): void {
      for (const method of [...methods, ...synchronous]) {
        const original = target[method] as unknown as (...args: unknown[]) => MaybePromise<unknown>;
        const sync = synchronous.includes(method);
        (target as Record<string, unknown>)[method] = (...args: unknown[]) => {
          if (sync && closing) throw new ClosedError({ component, method });
          return this.run(method, () => original.apply(target, args));
        };
      }
    },
    close(flush: () => Promise<void>): Promise<void> {
      closing ??= (async () => {
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        await flush();
      })();
      return closing;
    },
  };
}

/**
 * Flushes the globally registered OpenTelemetry tracer and meter providers (an SDK's `forceFlush`), bounded; a
 * failure or a timeout goes to `onFailure`, never to the caller. A tracer or meter passed in comes from a provider
 * its owner flushes.
 */
export async function flushTelemetry(timers: Timers, onFailure: (error: unknown) => void = warnFlushFailed, timeoutMs = TELEMETRY_FLUSH_TIMEOUT_MS): Promise<void> {
  const providers = [delegateOf(trace.getTracerProvider()), delegateOf(metrics.getMeterProvider())];
  await Promise.all(
    providers.map(async (provider) => {
      const flush = (provider as { forceFlush?: () => Promise<unknown> } | undefined)?.forceFlush;
      if (typeof flush !== 'function') return;
      try {
        await within(flush.call(provider), timeoutMs, timers);
      } catch (error) {
        onFailure(error instanceof TimedOut ? new Error(`flushing telemetry took longer than ${timeoutMs} ms`) : error);
      }
    }),
  );
}

/** The SDK provider behind the API's proxy provider (`getDelegate`), or the provider itself. */
function delegateOf(provider: unknown): unknown {
  const getDelegate = (provider as { getDelegate?: () => unknown } | undefined)?.getDelegate;
  return typeof getDelegate === 'function' ? getDelegate.call(provider) : provider;
}

/** What a closing object without a logger of its own (a sentinel) does with a failed flush: say so on the console. */
function warnFlushFailed(error: unknown): void {
  try {
    console.warn('[panoptes] flushing the OpenTelemetry providers on close() failed; spans or metrics may be lost.', error);
  } catch {
    // nothing left to report to
  }
}
