/**
 * Loading extension modules by path: what `panoptes <command> --module` and the proxy's `modules:` share.
 * @module
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRegistry, defaultRegistry, extensionsOf, isRegistry, type Extension, type Registry } from './registry.js';

/** Why one module gave nothing to the registry: its path, what went wrong and how to fix it. */
export interface ModuleFailure {
  /** The path as given. */
  path: string;
  /** Its index in the list given, for the diagnostic's place. */
  index: number;
  kind: 'import' | 'register' | 'empty';
  message: string;
  hint: string;
}

// What each module registered into the default registry when first imported. Node imports a module once per
// process, so a second load (two configs, or a config checked then served) finds its contribution here.
const registeredOnImport = new Map<string, Extension[]>();

/**
 * A registry holding the default registry's extensions and those of each module: a module may register into
 * `defaultRegistry` when imported, export a `registry` (named or default), or export what the `define*` functions
 * make (named exports, or arrays of them). Relative paths resolve against `base`.
 * @returns the registry, or the first module that does not import, whose extensions clash, or that gives nothing.
 * @example
 * const loaded = await loadExtensionModules(['./my-types.js']);
 * if ('registry' in loaded) await loadWorkflow('support.yaml', { registry: loaded.registry });
 */
export async function loadExtensionModules(paths: readonly string[], base = process.cwd()): Promise<{ registry: Registry } | { failure: ModuleFailure }> {
  if (paths.length === 0) return { registry: defaultRegistry };
  const loaded: Array<{ path: string; index: number; exports: Record<string, unknown>; onImport: Extension[] }> = [];
  for (const [index, path] of paths.entries()) {
    const href = pathToFileURL(resolve(base, path)).href;
    const before = new Set(extensionsIn(defaultRegistry));
    let exports: Record<string, unknown>;
    try {
      exports = (await import(href)) as Record<string, unknown>;
    } catch (error) {
      return { failure: { path, index, kind: 'import', message: `cannot import the module: ${messageOf(error)}`, hint: 'check the path, and that the module runs under Node on its own (a compiled .js or .mjs file)' } };
    }
    if (!registeredOnImport.has(href)) registeredOnImport.set(href, extensionsIn(defaultRegistry).filter((extension) => !before.has(extension)));
    loaded.push({ path, index, exports, onImport: registeredOnImport.get(href)! });
  }
  // After every import: a module registering into the default registry on import is in it now.
  const registry = createRegistry({ extends: defaultRegistry });
  for (const { path, index, exports, onImport } of loaded) {
    const given = [...[exports.registry, exports.default].filter((candidate): candidate is Registry => isRegistry(candidate) && candidate !== defaultRegistry).flatMap(extensionsIn), ...extensionsOf(exports)];
    if (given.length === 0 && onImport.length === 0) {
      return { failure: { path, index, kind: 'empty', message: 'the module gives no constraint type, intervention strategy or classification tier', hint: 'export what defineConstraintType, defineInterventionStrategy or defineClassificationTier return (or a registry), or register them into defaultRegistry when the module is imported' } };
    }
    try {
      registry.register(...given);
    } catch (error) {
      return { failure: { path, index, kind: 'register', message: `cannot register what the module exports: ${messageOf(error)}`, hint: 'give each constraint type, strategy and tier a name of its own' } };
    }
  }
  return { registry };
}

/** What a registry holds beyond the built-ins. */
function extensionsIn(registry: Registry): Extension[] {
  return [
    ...registry.constraintTypeNames().filter((name) => !registry.isBuiltInConstraintType(name)).map((name) => registry.constraintType(name)!),
    ...registry.strategyNames().filter((name) => !registry.isBuiltInStrategy(name)).map((name) => registry.strategy(name)!),
    ...registry.tiers(),
  ];
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!;
}
