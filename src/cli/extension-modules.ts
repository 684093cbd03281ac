import { Option } from 'commander';
import type { Diagnostic } from '../diagnostics/index.js';
import { defaultRegistry, type Registry } from '../registry/index.js';
import { loadExtensionModules } from '../registry/modules.js';
import { renderDiagnostic, type Output } from './output.js';

/** The help of `--module`, the same on every command that takes it. */
export const MODULE_OPTION_HELP = 'a JS module whose constraint types, strategies and tiers the workflows name (it registers them on import, or exports them or a registry); repeatable';

/**
 * `--module <file>`, repeatable (collected into `module: string[]`): one option for every command that loads workflows.
 * @param note said after the shared help (where else the command reads modules from).
 */
export function moduleOption(note = ''): Option {
  return new Option('--module <file>', `${MODULE_OPTION_HELP}${note}`).argParser((value: string, previous: string[] = []) => [...previous, value]);
}

/**
 * The registry `--module` files make: each module is imported (registering on import into the default registry
 * counts), then what it exports is added: a `registry` (named or default export) and any constraint types,
 * strategies and tiers made by the `define*` functions. Without modules, the default registry.
 * @returns the registry, or the diagnostic of a module that could not be imported or registered, or gives nothing.
 */
export async function registryFromModules(modules: readonly string[] = []): Promise<{ registry: Registry } | { failure: Diagnostic }> {
  if (modules.length === 0) return { registry: defaultRegistry };
  const loaded = await loadExtensionModules(modules);
  if ('registry' in loaded) return loaded;
  const { path, message, hint } = loaded.failure;
  return { failure: { severity: 'error', code: 'module-failed', message, hint, path: '', source: path } };
}

/**
 * The registry of a command's `--module` files, or `undefined` after printing why one failed on stderr (one line,
 * file first), for the commands that run a workflow rather than report on files.
 */
export async function registryOrReport(modules: readonly string[] | undefined, output: Output): Promise<Registry | undefined> {
  const loaded = await registryFromModules(modules);
  if ('registry' in loaded) return loaded.registry;
  output.err(`--module: ${renderDiagnostic(loaded.failure, output)}`);
  return undefined;
}
