import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** The schemas the package publishes: the workflow file's and the rubric file's. */
export type SchemaKind = 'workflow' | 'rubric';

/**
 * The `$schema` reference to write on the first line of a workflow (or, with `kind: 'rubric'`, rubric) file written to `file`: the path from the file's
 * folder to the schema `npm install panoptes` installs, so an editor resolves it. The schema is looked for as Node
 * looks for packages (each folder up from the file); when it is not installed yet, the path is where `npm install`
 * will put it, beside the nearest `package.json` (or in `cwd` without one). Inside the panoptes package itself the
 * path is to its own `workflow.schema.json`.
 * @param file Where the workflow is written; relative to `cwd`. For standard output, a file in `cwd`.
 * @example
 * schemaReference('panoptes/workflow.yaml') // '../node_modules/panoptes/workflow.schema.json' at the project root
 */
export function schemaReference(file: string, cwd = process.cwd(), kind: SchemaKind = 'workflow'): string {
  const folder = dirname(resolve(cwd, file));
  const name = `${kind}.schema.json`;
  const installed = join('node_modules', 'panoptes', name);
  const target = installedSchema(folder, installed) ?? projectSchema(folder, installed, name) ?? join(cwd, installed);
  const path = relative(folder, target).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

function installedSchema(folder: string, installed: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    if (existsSync(join(at, installed))) return join(at, installed);
    if (dirname(at) === at) return undefined;
  }
}

function projectSchema(folder: string, installed: string, name: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) {
      const own = join(at, name);
      return packageName(at) === 'panoptes' && existsSync(own) ? own : join(at, installed);
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
