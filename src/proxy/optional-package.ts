/**
 * Packages the proxy loads only when a setting asks for them (`rate_limit:`, OpenTelemetry export), so that a proxy
 * without those settings needs none of them installed.
 * @module
 */
import { MissingDependencyError } from '../embed/errors.js';
import { importOptional } from '../embed/optional-import.js';
import { PanoptesError } from '../errors/index.js';

/**
 * Imports `packageName` for `feature`; when it is not installed, fails with what to install and how to do without.
 * @throws {PanoptesError} `MISSING_DEPENDENCY`: "`rate_limit` needs the package `@fastify/rate-limit`, which is not installed: npm install ...".
 */
export async function importForProxy<T>(packageName: string, feature: string, without: string, importer?: (specifier: string) => Promise<unknown>): Promise<T> {
  try {
    return (await importOptional(packageName, feature, importer)) as T;
  } catch (error) {
    if (!MissingDependencyError.isInstance(error)) throw error;
    throw new PanoptesError('MISSING_DEPENDENCY', `${feature} needs the package \`${packageName}\`, which is not installed: npm install ${packageName} (next to panoptes), or ${without}.`, { cause: error });
  }
}
