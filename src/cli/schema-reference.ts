import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Where the package puts its workflow schema, inside a project that installed it. */
const INSTALLED_SCHEMA = join('node_modules', 'panoptes', 'workflow.schema.json');

/**
 * The `$schema` reference to write on the first line of a workflow file written to `file`: the path from the file's
 * folder to the schema `npm install panoptes` installs, so an editor resolves it. The schema is looked for as Node
 * looks for packages (each folder up from the file); when it is not installed yet, the path is where `npm install`
 * will put it, beside the nearest `package.json` (or in `cwd` without one). Inside the panoptes package itself the
 * path is to its own `workflow.schema.json`.
 * @param file Where the workflow is written; relative to `cwd`. For standard output, a file in `cwd`.
 * @example
 * schemaReference('panoptes/workflow.yaml') // '../node_modules/panoptes/workflow.schema.json' at the project root
 */
export function schemaReference(file: string, cwd = process.cwd()): string {
  const folder = dirname(resolve(cwd, file));
  const target = installedSchema(folder) ?? projectSchema(folder) ?? join(cwd, INSTALLED_SCHEMA);
  const path = relative(folder, target).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

function installedSchema(folder: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    if (existsSync(join(at, INSTALLED_SCHEMA))) return join(at, INSTALLED_SCHEMA);
    if (dirname(at) === at) return undefined;
  }
}

function projectSchema(folder: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) {
      const own = join(at, 'workflow.schema.json');
      return packageName(at) === 'panoptes' && existsSync(own) ? own : join(at, INSTALLED_SCHEMA);
    }
    if (dirname(at) === at) return undefined;
  }
}

function packageName(folder: string): unknown {
  try {
    return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}
