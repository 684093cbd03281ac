import { MissingDependencyError } from './errors.js';

/**
 * Imports an optional peer dependency at first use. The specifier is passed as a value, not a literal, so neither
 * TypeScript nor a bundler ties the core to a package the user may not have installed. A missing package becomes a
 * {@link MissingDependencyError} that says how to install it; any other failure (a broken native add-on) passes
 * through unchanged, since "install it" would be the wrong advice.
 * @internal
 */
export async function importOptional(packageName: string, feature: string, importer: (specifier: string) => Promise<unknown> = (specifier) => import(specifier)): Promise<unknown> {
  try {
    return await importer(packageName);
  } catch (error) {
    if (isModuleNotFound(error, packageName)) throw new MissingDependencyError({ packageName, feature, cause: error });
    throw error;
  }
}

function isModuleNotFound(error: unknown, packageName: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const notFound = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || (typeof message === 'string' && /cannot find (module|package)/i.test(message));
  // A package that is installed but misses one of its own dependencies should name that dependency, not this one.
  return notFound && typeof message === 'string' && message.includes(`'${packageName}'`);
}
