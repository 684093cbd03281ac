import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from '../diagnostics/index.js';
import { createRegistry, defaultRegistry, extensionsOf, isRegistry, type Registry } from '../registry/index.js';

/**
 * The registry `--module` files make: each module is imported (registering on import into the default registry
 * counts), then what it exports is added: a `registry` (named or default export) and any constraint types,
 * strategies and tiers made by the `define*` functions. Without modules, the default registry.
 * @returns the registry, or the diagnostic of a module that could not be imported or registered.
 */
export async function registryFromModules(modules: readonly string[] = []): Promise<{ registry: Registry } | { failure: Diagnostic }> {
  if (modules.length === 0) return { registry: defaultRegistry };
  const loaded: Array<{ path: string; exports: Record<string, unknown> }> = [];
  for (const path of modules) {
    try {
      loaded.push({ path, exports: (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown> });
    } catch (error) {
      return { failure: moduleFailure(path, `cannot import the module: ${messageOf(error)}`, 'check the path, and that the module runs under Node on its own (a compiled .js or .mjs file)') };
    }
  }
  // After every import: a module registering into the default registry on import is in it now.
  const registry = createRegistry({ extends: defaultRegistry });
  for (const { path, exports } of loaded) {
    try {
      for (const candidate of [exports.registry, exports.default]) {
        if (isRegistry(candidate) && candidate !== defaultRegistry) registry.register(...extensionsIn(candidate));
      }
      registry.register(...extensionsOf(exports));
    } catch (error) {
      return { failure: moduleFailure(path, `cannot register what the module exports: ${messageOf(error)}`, 'give each constraint type, strategy and tier a name of its own') };
    }
  }
  return { registry };
}

function extensionsIn(registry: Registry) {
  return [
    ...registry.constraintTypeNames().filter((name) => !registry.isBuiltInConstraintType(name)).map((name) => registry.constraintType(name)!),
    ...registry.strategyNames().filter((name) => !registry.isBuiltInStrategy(name)).map((name) => registry.strategy(name)!),
    ...registry.tiers(),
  ];
}

function moduleFailure(path: string, message: string, hint: string): Diagnostic {
  return { severity: 'error', code: 'module-failed', message, hint, path: '', source: path };
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!;
}
