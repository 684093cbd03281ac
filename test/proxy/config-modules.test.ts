/** The proxy config's `modules:` and PANOPTES_MODULES: imported at load into the registry the workflows load with. */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadServeConfig } from '../../src/proxy/config.js';
import { BIN, ROOT } from '../cli/binary.js';
import { configFile, errorOf } from './config-helpers.js';

const FIXTURES = join(ROOT, 'test/fixtures/extensions');
const UPSTREAM = 'upstream: http://127.0.0.1:9/v1\nworkflow: support.yaml\n';

/** A config file beside `files` (name to text); module fixtures outside the package re-export the package's own. */
function configWith(text: string, files: Record<string, string> = {}): string {
  const path = configFile(text);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dirname(path), name), content);
  return path;
}
const REEXPORT = `export { maxCount, developerNote } from '${pathToFileURL(join(FIXTURES, 'max-count.mjs')).href}';\n`;

describe('modules: in the proxy config', () => {
  it('imports each module relative to the config file, into the registry the config carries', async () => {
    const path = configWith(`${UPSTREAM}modules:\n  - ./types.mjs\n`, { 'types.mjs': REEXPORT });
    const config = await loadServeConfig({ configPath: path, env: {} });
    expect(config.modules).toEqual([join(dirname(path), 'types.mjs')]);
    expect(config.registry!.constraintType('max_count')?.name).toBe('max_count');
    expect(config.registry!.strategy('developer_note')?.name).toBe('developer_note');
  });

  it('reads PANOPTES_MODULES, comma-separated, relative to the working folder', async () => {
    const path = configWith(UPSTREAM);
    const config = await loadServeConfig({ configPath: path, env: { PANOPTES_MODULES: 'test/fixtures/extensions/max-count.mjs, test/fixtures/extensions/register-on-import.mjs' } });
    expect(config.modules).toEqual([join(FIXTURES, 'max-count.mjs'), join(FIXTURES, 'register-on-import.mjs')]);
    expect(config.registry!.constraintType('max_count')).toBeDefined();
  });

  it('takes --module (the flag) over modules: in the file, relative to the working folder', async () => {
    const path = configWith(`${UPSTREAM}modules: [./nowhere.mjs]\n`);
    const config = await loadServeConfig({ configPath: path, env: {}, flags: { modules: ['test/fixtures/extensions/exports-registry.mjs'] } });
    expect(config.modules).toEqual([join(FIXTURES, 'exports-registry.mjs')]);
    expect(config.registry!.strategy('developer_note')).toBeDefined();
  });

  it('without modules, carries neither modules nor a registry', async () => {
    const config = await loadServeConfig({ configPath: configWith(UPSTREAM), env: {} });
    expect(config).not.toHaveProperty('modules');
    expect(config).not.toHaveProperty('registry');
  });

  it('reports a missing module file at its item, with where the path is relative to', async () => {
    const path = configWith(`${UPSTREAM}modules:\n  - ./types.mjs\n  - ./nowhere.mjs\n`, { 'types.mjs': REEXPORT });
    expect(await errorOf(loadServeConfig({ configPath: path, env: {} }))).toContain(
      `${path}:5:5 error modules[1]: no such module file (${join(dirname(path), 'nowhere.mjs')}): received "./nowhere.mjs"; check the path; it is relative to the config file`,
    );
  });

  it('with another key wrong, reports a missing module file too, and imports no module', async () => {
    const path = configWith(`${UPSTREAM}portt: 1\nmodules: [./nowhere.mjs]\n`);
    const message = await errorOf(loadServeConfig({ configPath: path, env: {} }));
    expect(message).toContain("error portt: unknown key 'portt'");
    expect(message).toContain(`${path}:4:11 error modules[0]: no such module file`);
    const unimported = await errorOf(loadServeConfig({ configPath: configWith(`${UPSTREAM}portt: 1\nmodules: [./broken.mjs]\n`, { 'broken.mjs': "throw new Error('the types module is broken');\n" }), env: {} }));
    expect(unimported).toContain("error portt: unknown key 'portt'");
    expect(unimported).not.toContain('the types module is broken');
  });

  it('reports a module that fails on import, with its message', async () => {
    const path = configWith(`${UPSTREAM}modules: [./broken.mjs]\n`, { 'broken.mjs': "throw new Error('the types module is broken');\n" });
    expect(await errorOf(loadServeConfig({ configPath: path, env: {} }))).toContain(
      `${path}:3:11 error modules[0]: cannot import the module: the types module is broken (${join(dirname(path), 'broken.mjs')}); check the path, and that the module runs under Node on its own`,
    );
  });

  it('reports a module that gives nothing usable, with how to export its types', async () => {
    const path = configWith(`${UPSTREAM}modules:\n  - ./empty.mjs\n`, { 'empty.mjs': "export const maxCount = { name: 'max_count' };\n" });
    expect(await errorOf(loadServeConfig({ configPath: path, env: {} }))).toContain(
      `${path}:4:5 error modules[0]: the module gives no constraint type, intervention strategy or classification tier (${join(dirname(path), 'empty.mjs')}); export what defineConstraintType, defineInterventionStrategy or defineClassificationTier return (or a registry), or register them into defaultRegistry when the module is imported`,
    );
  });

  it('reports modules: that is not a list of paths, and a missing module named in the environment', async () => {
    const path = configWith(`${UPSTREAM}modules: 3\n`);
    expect(await errorOf(loadServeConfig({ configPath: path, env: {} }))).toContain(`${path}:3:10 error modules: not a list of module paths: received 3; expected a list of JS module paths (relative to the config file)`);
    const fromEnv = await errorOf(loadServeConfig({ configPath: configWith(UPSTREAM), env: { PANOPTES_MODULES: 'missing.mjs' } }));
    expect(fromEnv).toContain(`environment error PANOPTES_MODULES[0]: no such module file (${join(process.cwd(), 'missing.mjs')}): received "missing.mjs"; check the path; it is relative to the working folder`);
  });

  it('panoptes serve exits 1 on a module that gives nothing, naming it', async () => {
    const path = configWith(`${UPSTREAM}modules: [./empty.mjs]\nport: 0\n`, { 'empty.mjs': 'export const nothing = 1;\n' });
    writeFileSync(join(dirname(path), 'support.yaml'), 'name: s\nstates:\n  - { name: a, initial: true, classification: { patterns: ["a"] } }\n');
    const failure = await promisify(execFile)(process.execPath, [BIN, 'serve', '--config', path], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(`Invalid proxy configuration:\n${path}:3:11 error modules[0]: the module gives no constraint type`);
  });
});
