/**
 * The `modules:` key of `panoptes serve`'s configuration: JS modules holding the constraint types, intervention
 * strategies and classification tiers the proxy's workflows name. Each is imported when the configuration loads, so
 * a missing file, a module that throws or one that gives nothing is reported then, with its place and a fix.
 * @module
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Diagnostic } from '../../diagnostics/index.js';
import type { Registry } from '../../registry/index.js';
import { loadExtensionModules } from '../../registry/modules.js';
import type { CheckedValue, CustomCheck } from './field.js';

/** The shape of `modules:`: a list of paths (in the environment, comma-separated); files are checked by {@link loadConfigModules}. */
export const modulesList: CustomCheck = {
  check(value) {
    const list = typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;
    if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string' && item.trim() !== '')) return { problem: 'not a list of module paths' };
    return { value: list };
  },
  expected: 'a list of JS module paths (relative to the config file), e.g. [./my-types.js]; in PANOPTES_MODULES: comma-separated',
};

/**
 * Imports the checked `modules:` into one registry: the one the proxy's workflows are loaded with.
 * @param importModules false when other keys are invalid: the files are checked, but no module's code runs.
 * @returns the modules' absolute paths and the registry, or nothing after adding a diagnostic per problem.
 */
export async function loadConfigModules(checked: CheckedValue, diagnostics: Diagnostic[], { importModules = true }: { importModules?: boolean } = {}): Promise<{ modules: string[]; registry: Registry } | undefined> {
  const { value, origin } = checked;
  const paths = (value as string[]).map((path) => resolve(origin.base, path));
  const place = (index: number): Pick<Diagnostic, 'path' | 'source' | 'line' | 'column'> => {
    const at = origin.items?.[index] ?? (origin.line === undefined ? undefined : { line: origin.line, column: origin.column! });
    const path = origin.source === 'command line' ? origin.path : `${origin.path}[${index}]`;
    return { path, source: origin.source, ...(at ? { line: at.line, column: at.column } : {}) };
  };
  const where = origin.source === 'environment' || origin.source === 'command line' ? 'the working folder' : 'the config file';
  let missing = false;
  for (const [index, path] of paths.entries()) {
    try {
      await access(path);
    } catch {
      missing = true;
      diagnostics.push({ severity: 'error', code: 'invalid-value', message: `no such module file (${path}): received ${JSON.stringify((value as string[])[index])}`, ...place(index), hint: `check the path; it is relative to ${where}` });
    }
  }
  if (missing || !importModules) return undefined;
  const loaded = await loadExtensionModules(paths);
  if ('failure' in loaded) {
    const { index, message, hint } = loaded.failure;
    diagnostics.push({ severity: 'error', code: 'invalid-value', message: `${message} (${paths[index]})`, ...place(index), hint });
    return undefined;
  }
  return { modules: paths, registry: loaded.registry };
}
