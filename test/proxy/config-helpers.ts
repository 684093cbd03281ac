/** What the serve configuration tests share: a config file beside a stand-in workflow, and the error a load gives. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ProxyConfigError } from '../../src/proxy/config.js';

/** Writes `text` as `panoptes.yaml` in a new folder, beside a `support.yaml` (serve checks the path; loading it checks the rest). */
export function configFile(text: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'panoptes-serve-'));
  writeFileSync(join(folder, 'support.yaml'), '# stands in for a workflow: serve checks the path; loading it checks the rest\n');
  const path = join(folder, 'panoptes.yaml');
  writeFileSync(path, text);
  return path;
}

/** The message of the `ProxyConfigError` a load rejects with. */
export async function errorOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(ProxyConfigError.isInstance(error)).toBe(true);
  return (error as Error).message;
}
