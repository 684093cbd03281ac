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
  /** `--module <file>`, repeatable: sets `modules`. */
  module?: string[];
}

/**
 * `panoptes serve`: the OpenAI-compatible proxy (docs/proxy.md). Prints `listening on <url>` once it accepts
 * connections, and on SIGTERM or SIGINT drains the requests in flight and exits 0. The proxy (Fastify, undici, and
 * redis when configured) is imported only here, so other commands never load it.
 * @returns 1 when the configuration is invalid (every problem printed, with its place); otherwise it runs until stopped.
 */
export async function serveCommand(options: ServeCommandOptions, output: Output): Promise<number> {
  const { loadServeConfig, ProxyConfigError, formatConfigError } = await import('../../proxy/config.js');
  const serve = await import('../../proxy/serve.js').catch((error: unknown) => error as Error);
  if (serve instanceof Error) return missingPeers(serve, ['fastify', 'undici'], output);
  const { startServe } = serve;
  // Flags are named by the configuration key they set: `--redis` sets `redis.url`.
  const { config: configPath, redis, module: modules, ...rest } = options;
  const flags = { ...rest, ...(redis === undefined ? {} : { 'redis.url': redis }), ...(modules === undefined ? {} : { modules }) };
  let config;
  try {
    config = await loadServeConfig({ ...(configPath === undefined ? {} : { configPath }), flags });
  } catch (error) {
    if (!ProxyConfigError.isInstance(error)) throw error;
    output.err(`Invalid proxy configuration:\n${formatConfigError(error)}`);
    return 1;
  }
  let running;
  try {
    running = await startServe(config, { logger: { warn: (line: string) => output.err(line) } });
  } catch (error) {
    if (config.redis && isMissingModule(error)) return missingPeers(error as Error, ['redis'], output);
    // A local embedding model that does not load is configuration too: said in one line, not as a stack trace.
    if ((error as Error)?.name === 'EmbeddingModelLoadError') {
      output.err(`Invalid proxy configuration:\n${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
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

/** Whether `error` is Node's "cannot find this package" (an optional peer dependency that is not installed). */
function isMissingModule(error: unknown): boolean {
  return (error as { code?: unknown })?.code === 'ERR_MODULE_NOT_FOUND';
}

/** Says which optional peer dependencies `serve` needs and how to install them; rethrows any other failure. */
function missingPeers(error: Error, packages: string[], output: Output): number {
  if (!isMissingModule(error)) throw error;
  output.err(`panoptes serve needs ${packages.join(' and ')}, which are optional: npm install ${packages.join(' ')}\n(${error.message.split('\n')[0]})`);
  return 1;
}
