/**
 * Writes `workflow.schema.json` (published with the package, for editor completion) from `workflowJsonSchema()`.
 * Run with `npm run schema` after changing the workflow format; a test fails while the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { workflowJsonSchema } from '../src/workflow/schema.js';

const target = fileURLToPath(new URL('../workflow.schema.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(workflowJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
