/**
 * Rate limits per caller, with `@fastify/rate-limit` (loaded only when `rate_limit:` is set): at most `max` requests
 * per `windowMs` for each proxy key (each client address on an open proxy). The plugin counts; the proxy answers a
 * request over the limit with a 429 in its route's error format, with the plugin's `retry-after` header.
 * @module
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { proxyError, type ProxyError } from './errors.js';
import { importForProxy } from './optional-package.js';

/** `rate_limit:` of the configuration. */
export interface RateLimitSettings {
  /** Most requests a caller makes in one window. */
  max: number;
  /** The window, in milliseconds. */
  windowMs: number;
}

/** The package, and the version range the proxy is written against. */
export const RATE_LIMIT_PACKAGE = '@fastify/rate-limit';

type LimitHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Marks the value the plugin throws for a request over the limit. */
const LIMITED = Symbol('panoptes.rate-limited');
interface Limited {
  [LIMITED]: true;
  ttl: number;
}

/**
 * Registers the plugin on a scope of `app` (with no hook of its own: `global: false`) and returns the check the proxy
 * runs after its key check: a {@link ProxyError} (429) for a request over the limit, else undefined. The check lets
 * requests through while the plugin is loading and when its store fails (fail-open).
 * @throws (from `app.ready()` / `listen()`) `MISSING_DEPENDENCY` when `@fastify/rate-limit` is not installed.
 */
export function createRateLimit(app: FastifyInstance, { max, windowMs }: RateLimitSettings, { callerOf, describeCaller }: { callerOf(request: FastifyRequest): string; describeCaller: string }) {
  let hook: LimitHook | undefined;
  void app.register(async (scope) => {
    const loaded = await importForProxy<{ default?: FastifyPluginAsync } & FastifyPluginAsync>(RATE_LIMIT_PACKAGE, 'rate_limit', 'leave rate_limit out of the configuration');
    await scope.register(loaded.default ?? loaded, {
      global: false,
      max,
      timeWindow: windowMs,
      keyGenerator: callerOf,
      skipOnError: true,
      errorResponseBuilder: (_request: FastifyRequest, context: { ttl: number }): Limited => ({ [LIMITED]: true, ttl: context.ttl }),
    } as Record<string, unknown>);
    hook = (scope as unknown as { rateLimit(): LimitHook }).rateLimit();
  });
  return async function overLimit(request: FastifyRequest, reply: FastifyReply): Promise<ProxyError | undefined> {
    try {
      await hook?.(request, reply);
      return undefined;
    } catch (error) {
      if (!(typeof error === 'object' && error !== null && LIMITED in error)) throw error;
      const seconds = Math.max(1, Math.ceil((error as Limited).ttl / 1000));
      return proxyError(429, 'rate_limit_error', 'rate_limit_exceeded', `Rate limit reached: at most ${max} ${max === 1 ? 'request' : 'requests'} per ${windowMs} ms for each ${describeCaller}. Retry in ${seconds} s.`);
    }
  };
}
