/**
 * The proxy's Redis rows alone (`npm run bench -- proxy-redis`, about a minute): direct to the fake upstream, the
 * proxy with the memory store and with the Redis store, taking turns in one stretch, at 100 and 500 requests/s. The
 * same rows as the end of the `proxy` suite, for measuring a change to the Redis store without the whole suite.
 */
import type { BenchRow } from './harness.js';
import { closeClient, redisRows, spawnServer } from './proxy.js';

/** Runs the Redis rows of the proxy bench; `npm run bench -- proxy-redis`. */
export async function proxyRedisBench(): Promise<BenchRow[]> {
  const upstream = await spawnServer('upstream');
  try {
    return (await redisRows(upstream.url)).map((row) => ({ ...row, suite: 'proxy-redis' }));
  } finally {
    upstream.stop();
    await closeClient();
  }
}
