/**
 * Writes `workflow.schema.json` and `rubric.schema.json` (published with the package, for editor completion) from
 * `workflowJsonSchema()` and `rubricJsonSchema()`. Run with `npm run schema` after changing either format; a test
 * fails while a file is stale.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rubricJsonSchema } from '../src/judge/schema.js';
import { workflowJsonSchema } from '../src/workflow/schema.js';

for (const [file, schema] of [['workflow.schema.json', workflowJsonSchema()], ['rubric.schema.json', rubricJsonSchema()]] as const) {
  const target = fileURLToPath(new URL(`../${file}`, import.meta.url));
  writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${target}`);
}
