import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { formatDiagnostic } from '../diagnostics/index.js';
import { readFailureDiagnostic, readFailureLine } from '../diagnostics/read-failure.js';
import { DEFAULT_MAX_BYTES, readTextWithin } from '../limits/index.js';
import { parseScenario } from './parse.js';
import type { Scenario } from './types.js';

/**
 * Reads scenario files; a folder stands for every `.yaml`/`.yml` file under it that has an `expect` key, sorted. A file that cannot be read
 * or parsed becomes a problem (its diagnostics rendered `file:line:column error path: message`), never a throw.
 */
export async function loadScenarios(paths: readonly string[]): Promise<{ scenarios: Scenario[]; problems: Array<{ file: string; text: string }> }> {
  const scenarios: Scenario[] = [];
  const problems: Array<{ file: string; text: string }> = [];
  for (const { file, fromFolder } of await expand(paths, problems)) {
    let text: string;
    try {
      const read = await readTextWithin(file, DEFAULT_MAX_BYTES, 'scenario');
      if ('tooLarge' in read) {
        problems.push({ file, text: `${read.tooLarge.message}; ${read.tooLarge.hint}` });
        continue;
      }
      text = read.text;
    } catch (error) {
      problems.push({ file, text: unreadable(file, error) });
      continue;
    }
    // A folder may hold other YAML (the workflow beside its scenarios): only files with an `expect` key are scenarios.
    if (fromFolder && !EXPECT_KEY.test(text)) continue;
    const { scenario, diagnostics } = parseScenario(text, { file });
    if (scenario) scenarios.push(scenario);
    else problems.push(...diagnostics.map((diagnostic) => ({ file, text: formatDiagnostic(diagnostic) })));
  }
  return { scenarios, problems };
}

/** Why a scenario file or folder cannot be read, as one line that starts with its path, like a diagnostic. */
function unreadable(path: string, error: unknown): string {
  return readFailureLine(readFailureDiagnostic(path, error, 'check the path, or run `panoptes init` to write starter scenarios'));
}

const EXPECT_KEY = /(^|[{,\s])["']?expect["']?\s*:/m;

async function expand(paths: readonly string[], problems: Array<{ file: string; text: string }>): Promise<Array<{ file: string; fromFolder: boolean }>> {
  const files: Array<{ file: string; fromFolder: boolean }> = [];
  for (const path of paths) {
    const info = await stat(path).catch((error: unknown) => error as NodeJS.ErrnoException);
    if (info instanceof Error) {
      problems.push({ file: path, text: unreadable(path, info) });
    } else if (info.isDirectory()) {
      const entries = await readdir(path, { recursive: true });
      files.push(...entries.filter((entry) => /\.ya?ml$/i.test(entry)).sort().map((entry) => ({ file: join(path, entry), fromFolder: true })));
    } else {
      files.push({ file: path, fromFolder: false });
    }
  }
  return files;
}
