/** `panoptes serve` configuration: file, PANOPTES_* variables and flags, with positioned errors. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServeConfig } from '../../src/proxy/config.js';
import { proxyKeyId } from '../../src/proxy/index.js';
import { SUPPORT_WORKFLOW } from './helpers.js';
import { configFile, errorOf } from './config-helpers.js';

describe('loadServeConfig', () => {
  it('reads a file, with defaults, paths relative to it, and nested sections', async () => {
    const path = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\nproxy_keys: [a, b]\nlimits:\n  body_bytes: 2048\nredis:\n  url: redis://127.0.0.1:6379\n');
    const config = await loadServeConfig({ configPath: path, env: {} });
    expect(config).toEqual({
      upstream: 'http://127.0.0.1:8000/v1',
      workflow: join(path, '..', 'support.yaml'),
      workflowId: 'default',
      workflows: [],
      port: 4100,
      host: '127.0.0.1',
      loops: false,
      strict: true,
      proxyKeys: ['a', 'b'],
      requireSessionId: false,
      factSummary: true,
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
    expect((await loadServeConfig({ configPath: path, env: { PANOPTES_FACT_SUMMARY: 'false' } })).factSummary).toBe(false);
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

describe('loadServeConfig: rulebase and workflows', () => {
  /** A config file beside a second workflow and a rulebase (stand-ins: serve loads them, the config only finds them). */
  function withFiles(text: string): string {
    const path = configFile(text);
    writeFileSync(join(path, '..', 'billing.yaml'), '# stands in for a workflow\n');
    writeFileSync(join(path, '..', 'refunds.rules'), '# stands in for a rulebase\n');
    return path;
  }
  const BASE = 'upstream: http://127.0.0.1:8000/v1\n';

  it('reads the default rulebase and the workflows with their selectors, in order; the top-level workflow is the default', async () => {
    const path = withFiles(
      `${BASE}workflow: support.yaml\nrulebase: refunds.rules\nproxy_keys: [pk-a]\nworkflows:\n` +
        '  - id: billing\n    workflow: billing.yaml\n    rulebase: refunds.rules\n    loops: true\n    select: { header: { name: X-Team, value: billing } }\n' +
        `  - id: mini\n    workflow: billing.yaml\n    select: { model: "gpt-4o-mini*", route: /v1/chat/completions/, key: ${proxyKeyId('pk-a')} }\n`,
    );
    const config = await loadServeConfig({ configPath: path, env: {} });
    const folder = join(path, '..');
    expect(config).toMatchObject({ workflow: join(folder, 'support.yaml'), workflowId: 'default', rulebase: join(folder, 'refunds.rules'), loops: false });
    expect(config.workflows).toEqual([
      { id: 'billing', workflow: join(folder, 'billing.yaml'), rulebase: join(folder, 'refunds.rules'), loops: true, default: false, select: { header: { name: 'x-team', value: 'billing' } } },
      { id: 'mini', workflow: join(folder, 'billing.yaml'), loops: false, default: false, select: { model: 'gpt-4o-mini*', route: '/v1/chat/completions', key: proxyKeyId('pk-a') } },
    ]);
  });

  it('takes the entry marked default: true as the default, with its rulebase and loops', async () => {
    const path = withFiles(`${BASE}workflows:\n  - { id: support, workflow: support.yaml, rulebase: refunds.rules, loops: true, default: true }\n  - { id: billing, workflow: billing.yaml, select: { route: /v1/responses } }\n`);
    const config = await loadServeConfig({ configPath: path, env: {} });
    expect(config).toMatchObject({ workflowId: 'support', workflow: join(path, '..', 'support.yaml'), rulebase: join(path, '..', 'refunds.rules'), loops: true });
    expect(config.workflows.map((entry) => [entry.id, entry.loops])).toEqual([['billing', false]]);
  });

  it('takes the rulebase from PANOPTES_RULEBASE', async () => {
    const path = withFiles(`${BASE}workflow: support.yaml\n`);
    const config = await loadServeConfig({ configPath: path, env: { PANOPTES_RULEBASE: join(path, '..', 'refunds.rules') } });
    expect(config.rulebase).toBe(join(path, '..', 'refunds.rules'));
  });

  it('reports a rulebase that does not exist at its line', async () => {
    const path = withFiles(`${BASE}workflow: support.yaml\nrulebase: nope.rules\n`);
    expect(await errorOf(loadServeConfig({ configPath: path, env: {} }))).toContain(`${path}:3:11 error rulebase: no such file (${join(path, '..', 'nope.rules')}): received "nope.rules"; expected the path of a rulebase (.rules) file (relative to the config file)`);
  });

  it('reports unknown keys, bad values and missing keys of an entry at their lines, with a fix', async () => {
    const path = withFiles(`${BASE}workflow: support.yaml\nworkflows:\n  - id: billing\n    workflow: billing.yaml\n    selct: { model: x }\n  - id: bad id\n    workflow: missing.yaml\n    select: { modle: x, header: x-team }\n  - workflow: billing.yaml\n    select: { model: y }\n`);
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toContain(`${path}:6:5 error workflows[0].selct: unknown key 'workflows[0].selct'; did you mean 'select'?`);
    expect(message).toContain(`${path}:4:5 error workflows[0].select: workflow 'billing' has no select: conditions, so it would take every request; give it a select: (route, header, model or key), or make it the default with default: true`);
    expect(message).toContain(`${path}:7:9 error workflows[1].id: not a workflow id: received "bad id"`);
    expect(message).toContain(`${path}:8:15 error workflows[1].workflow: no such file`);
    expect(message).toContain(`${path}:9:15 error workflows[1].select.modle: unknown key 'workflows[1].select.modle'; a selector takes: route, header, model, key`);
    expect(message).toContain(`error workflows[1].select.header: not a header and its value: received "x-team"; header: { name: x-team, value: billing }`);
    expect(message).toContain(`${path}:10:5 error workflows[2].id: 'id' is required in workflows[2]; give the workflow an id: \`id: billing\``);
  });

  it('refuses two defaults, or none, naming where', async () => {
    const two = withFiles(`${BASE}workflows:\n  - { id: a, workflow: support.yaml, default: true }\n  - { id: b, workflow: billing.yaml, default: true }\n`);
    expect(await errorOf(loadServeConfig({ configPath: two, env: {} }))).toContain(`${two}:4:47 error workflows[1].default: a second default: workflow 'b' (the first is 'a' at line 3); keep default: true on one entry only`);
    const both = withFiles(`${BASE}workflow: support.yaml\nworkflows:\n  - { id: a, workflow: billing.yaml, default: true }\n`);
    expect(await errorOf(loadServeConfig({ configPath: both, env: {} }))).toContain("workflows[0].default: two defaults: the top-level workflow: and workflow 'a'; keep one: remove the top-level workflow:, or default: true from this entry");
    const none = withFiles(`${BASE}workflows:\n  - { id: a, workflow: billing.yaml, select: { model: x } }\n`);
    const message = await errorOf(loadServeConfig({ configPath: none, env: {} }));
    expect(message).toContain(`${none}:3:3 error workflows: no default workflow: a request no selector matches would have none; mark one entry default: true, or set the top-level workflow:`);
    expect(message).not.toContain("'workflow' is required");
  });

  it('refuses selectors that can never match: a route with no generation, an unserved route, an unknown or absent key, a repeated selector', async () => {
    const path = withFiles(
      `${BASE}workflow: support.yaml\nproxy_keys: [pk-a]\nworkflows:\n` +
        '  - { id: models, workflow: billing.yaml, select: { route: /v1/models } }\n' +
        '  - { id: claude, workflow: billing.yaml, select: { route: /v1/messages } }\n' +
        '  - { id: keyed, workflow: billing.yaml, select: { key: key-000000000000 } }\n' +
        '  - { id: first, workflow: billing.yaml, select: { model: "gpt-*" } }\n' +
        '  - { id: second, workflow: billing.yaml, select: { model: "gpt-*" } }\n' +
        '  - { id: default, workflow: billing.yaml, select: { model: x } }\n',
    );
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toContain(`${path}:5:51 error workflows[0].select.route: the route /v1/models serves no monitored generation, so it never selects a workflow; a prefix of one of /v1/chat/completions, /v1/completions, /v1/responses, /v1/messages (or /v1 for all)`);
    expect(message).toContain('workflows[1].select.route: the route /v1/messages is not served: anthropic_upstream is not set; set anthropic_upstream, or select another route');
    expect(message).toContain(`workflows[2].select.key: 'key-000000000000' is the id of none of proxy_keys; the ids of the configured keys: ${proxyKeyId('pk-a')}`);
    expect(message).toContain("workflows[4].select: workflow 'second' can never be selected: workflow 'first' before it has the same selector");
    expect(message).toContain("workflows[5].id: the id 'default' names the top-level workflow:");
    const open = withFiles(`${BASE}workflow: support.yaml\nworkflows:\n  - { id: keyed, workflow: billing.yaml, select: { key: key-000000000000 } }\n`);
    expect(await errorOf(loadServeConfig({ configPath: open, env: {} }))).toContain('workflows[0].select.key: a key selector on an open proxy: no request carries a proxy key; set proxy_keys, or select by something else');
  });

  it('refuses a workflows: that is not a list', async () => {
    const path = withFiles(`${BASE}workflow: support.yaml\nworkflows: billing.yaml\n`);
    expect(await errorOf(loadServeConfig({ configPath: path, env: {} }))).toContain(`${path}:3:12 error workflows: workflows must be a list of workflows`);
  });
});

describe('loadServeConfig: loop settings of a workflow', () => {
  it('takes a loops: section in an entry over the top-level one, key by key, and checks its keys at their lines', async () => {
    const path = configFile(
      'upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\nloops:\n  window: 7\n  threshold: 0.9\nworkflows:\n' +
        '  - id: strict\n    workflow: support.yaml\n    select: { model: "x*" }\n    loops:\n      threshold: 0.97\n      stop_at: 4\n' +
        '  - id: quiet\n    workflow: support.yaml\n    select: { model: "y*" }\n    loops: false\n',
    );
    const config = await loadServeConfig({ configPath: path, env: {} });
    expect(config.loopOptions).toMatchObject({ window: 7, threshold: 0.9 });
    expect(config.workflows.map((entry) => [entry.id, entry.loops])).toEqual([['strict', true], ['quiet', false]]);
    expect(config.workflows[0]!.loopOptions).toMatchObject({ window: 7, threshold: 0.97, escalation: { stopAt: 4 } });

    const bad = configFile('upstream: http://127.0.0.1:8000/v1\nworkflow: support.yaml\nworkflows:\n  - id: a\n    workflow: support.yaml\n    select: { model: "x*" }\n    loops:\n      treshold: 0.9\n      window: none\n');
    const message = await errorOf(loadServeConfig({ configPath: bad, env: {} }));
    expect(message).toContain(`${bad}:8:7 error workflows[0].loops.treshold: unknown key 'workflows[0].loops.treshold'; did you mean 'threshold'?`);
    expect(message).toContain(`${bad}:9:15 error workflows[0].loops.window: not a whole number: received "none"; expected a positive whole number`);
  });
});
