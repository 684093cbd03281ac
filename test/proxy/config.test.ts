/** `panoptes serve` configuration: file, PANOPTES_* variables and flags, with positioned errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServeConfig, ProxyConfigError } from '../../src/proxy/config.js';
import { SUPPORT_WORKFLOW } from './helpers.js';

function configFile(text: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'panoptes-serve-'));
  writeFileSync(join(folder, 'support.yaml'), '# stands in for a workflow: serve checks the path; loading it checks the rest\n');
  const path = join(folder, 'panoptes.yaml');
  writeFileSync(path, text);
  return path;
}

async function errorOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(ProxyConfigError.isInstance(error)).toBe(true);
  return (error as Error).message;
}

describe('loadServeConfig', () => {
  it('reads a file, with defaults, paths relative to it, and nested sections', async () => {
    const path = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\nproxy_keys: [a, b]\nlimits:\n  body_bytes: 2048\nredis:\n  url: redis://127.0.0.1:6379\n');
    const config = await loadServeConfig({ configPath: path, env: {} });
    expect(config).toEqual({
      upstream: 'http://127.0.0.1:8000/v1',
      workflow: join(path, '..', 'support.yaml'),
      port: 4100,
      host: '127.0.0.1',
      loops: false,
      strict: true,
      proxyKeys: ['a', 'b'],
      requireSessionId: false,
      textPolicy: 'stream',
      limits: { bodyBytes: 2048, upstreamTimeoutMs: 300_000, holdTextChars: 65_536, holdTextMs: 10_000 },
      redis: { url: 'redis://127.0.0.1:6379' },
    });
  });

  it('lets PANOPTES_* variables override the file, and flags override both; flags alone are enough', async () => {
    const path = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\nport: 4000\n');
    const env = { PANOPTES_PORT: '5000', PANOPTES_PROXY_KEYS: 'k1, k2', PANOPTES_LIMITS__UPSTREAM_TIMEOUT_MS: '1000', PANOPTES_LOOPS: 'true' };
    const fromEnv = await loadServeConfig({ configPath: path, env });
    expect(fromEnv).toMatchObject({ port: 5000, proxyKeys: ['k1', 'k2'], loops: true, limits: { upstreamTimeoutMs: 1000 } });
    const held = await loadServeConfig({ configPath: path, env: { PANOPTES_TEXT_POLICY: 'hold', PANOPTES_LIMITS__HOLD_TEXT_MS: '500' } });
    expect(held).toMatchObject({ textPolicy: 'hold', limits: { holdTextMs: 500 } });
    await expect(loadServeConfig({ configPath: path, env: { PANOPTES_TEXT_POLICY: 'later' } })).rejects.toThrow();
    expect((await loadServeConfig({ configPath: path, env, flags: { port: '0' } })).port).toBe(0);
    const flagsOnly = await loadServeConfig({ env: {}, flags: { upstream: 'http://127.0.0.1:8000/v1', workflow: SUPPORT_WORKFLOW, port: '0' } });
    expect(flagsOnly).toMatchObject({ upstream: 'http://127.0.0.1:8000/v1', workflow: SUPPORT_WORKFLOW, port: 0 });
  });

  it('reads the Redis wait bound from the file or PANOPTES_REDIS__COMMAND_TIMEOUT_MS', async () => {
    const path = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\nredis:\n  url: redis://127.0.0.1:6379\n  command_timeout_ms: 100\n');
    expect((await loadServeConfig({ configPath: path, env: {} })).redis).toEqual({ url: 'redis://127.0.0.1:6379', commandTimeoutMs: 100 });
    expect((await loadServeConfig({ configPath: path, env: { PANOPTES_REDIS__COMMAND_TIMEOUT_MS: '400' } })).redis?.commandTimeoutMs).toBe(400);
  });

  it('reads passthrough prefixes (normalised) and the Anthropic upstream, from the file or the environment', async () => {
    const path = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\nanthropic_upstream: https://api.anthropic.com/v1\npassthrough: [/v1/models/, /v1/embeddings]\n');
    expect(await loadServeConfig({ configPath: path, env: {} })).toMatchObject({ anthropicUpstream: 'https://api.anthropic.com/v1', passthrough: ['/v1/models', '/v1/embeddings'] });
    expect((await loadServeConfig({ configPath: path, env: { PANOPTES_PASSTHROUGH: '/v1' } })).passthrough).toEqual(['/v1']);
    const bare = await loadServeConfig({ configPath: configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\n'), env: {} });
    expect(bare.passthrough).toBeUndefined();
    expect(bare.anthropicUpstream).toBeUndefined();
  });

  it('refuses a passthrough prefix that is no path under /v1, naming it', async () => {
    const path = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\npassthrough: [/v1/models, /admin]\n');
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toContain(`${path}:3:14 error passthrough: "/admin" is no path under /v1: received ["/v1/models","/admin"]; expected a list of path prefixes under /v1`);
  });

  it('reports an unknown key at its line and column, with a suggestion', async () => {
    const path = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\nlimits:\n  body_byts: 10\nupstreem: x\n');
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toContain(`${path}:4:3 error limits.body_byts: unknown key 'limits.body_byts'; did you mean 'limits.body_bytes'?`);
    expect(message).toContain(`${path}:5:1 error upstreem: unknown key 'upstreem'; did you mean 'upstream'?`);
  });

  it('reports a workflow path that does not exist at the line of the key, resolved against the config file', async () => {
    const path = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: missing.yaml\n');
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toContain(`${path}:2:11 error workflow: no such file (${join(path, '..', 'missing.yaml')}): received "missing.yaml"; expected the path of a workflow YAML file (relative to the config file)`);
  });

  it('names the variable or flag of a bad value, and every missing required key', async () => {
    const fromEnv = await errorOf(loadServeConfig({ env: { PANOPTES_PORT: 'eighty', PANOPTES_REDIS__URLL: 'redis://x' }, flags: { upstream: 'ftp://x' } }));
    expect(fromEnv).toContain('environment error PANOPTES_PORT: not a whole number: received "eighty"; expected a TCP port from 0 to 65535 (0 picks a free port)');
    expect(fromEnv).toContain('environment error PANOPTES_REDIS__URLL: unknown variable PANOPTES_REDIS__URLL; did you mean PANOPTES_REDIS__URL?');
    expect(fromEnv).toContain("command line error --upstream: unsupported protocol 'ftp:': received \"ftp://x\"");
    expect(fromEnv).toContain("command line error workflow: 'workflow' is required; set it with --workflow, PANOPTES_WORKFLOW, or 'workflow:' in the config file");
  });

  it('reports a config file that cannot be read or parsed', async () => {
    const missing = await errorOf(loadServeConfig({ configPath: '/nonexistent/panoptes.yaml', env: {} }));
    expect(missing).toContain("/nonexistent/panoptes.yaml: cannot read config file '/nonexistent/panoptes.yaml': no such file");
    expect(missing).not.toContain('is required'); // one problem, not the keys the file would have held
    const bad = configFile('upstream: [unclosed\n');
    expect(await errorOf(loadServeConfig({ configPath: bad, env: {} }))).toMatch(new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+ error `));
  });
});
