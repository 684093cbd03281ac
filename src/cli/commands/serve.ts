import type { Output } from '../output.js';

/** Flags of `panoptes serve`, as commander gives them. */
export interface ServeCommandOptions {
  config?: string;
  upstream?: string;
  workflow?: string;
  port?: string;
  host?: string;
  redis?: string;
  loops?: boolean;
}

/**
 * `panoptes serve`: the OpenAI-compatible proxy (docs/proxy.md). Prints `listening on <url>` once it accepts
 * connections, and on SIGTERM or SIGINT drains the requests in flight and exits 0. The proxy (Fastify, undici, and
 * redis when configured) is imported only here, so other commands never load it.
 * @returns 1 when the configuration is invalid (every problem printed, with its place); otherwise it runs until stopped.
 */
export async function serveCommand(options: ServeCommandOptions, output: Output): Promise<number> {
  const { loadServeConfig, ProxyConfigError, formatConfigError } = await import('../../proxy/config.js');
  const { startServe } = await import('../../proxy/serve.js');
  // Flags are named by the configuration key they set: `--redis` sets `redis.url`.
  const { config: configPath, redis, ...rest } = options;
  const flags = { ...rest, ...(redis === undefined ? {} : { 'redis.url': redis }) };
  let config;
  try {
    config = await loadServeConfig({ ...(configPath === undefined ? {} : { configPath }), flags });
  } catch (error) {
    if (!ProxyConfigError.isInstance(error)) throw error;
    output.err(`Invalid proxy configuration:\n${formatConfigError(error)}`);
    return 1;
  }
  const running = await startServe(config, { logger: { warn: (line: string) => output.err(line) } });
  output.out(`listening on ${running.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      void running.close().then(resolve, resolve);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  return 0;
}
