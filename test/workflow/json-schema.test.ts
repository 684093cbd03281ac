import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workflowJsonSchema } from '../../src/workflow/index.js';

describe('workflowJsonSchema', () => {
  it('matches the committed workflow.schema.json', () => {
    const committed: unknown = JSON.parse(readFileSync(new URL('../../workflow.schema.json', import.meta.url), 'utf8'));
    expect(committed, 'workflow.schema.json is stale: run `npm run schema` and commit the result').toEqual(workflowJsonSchema());
  });

  it('is a closed draft 2020-12 schema that requires name and states', () => {
    const schema = workflowJsonSchema();
    expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['name', 'states'], additionalProperties: false });
    const transition = (schema.properties as { transitions: { items: Record<string, unknown> } }).transitions.items;
    expect(transition.additionalProperties).toBe(false);
    expect(transition.allOf).toEqual([
      { anyOf: [{ required: ['from_state'] }, { required: ['from'] }] },
      { anyOf: [{ required: ['to_state'] }, { required: ['target'] }, { required: ['to'] }] },
    ]);
  });
});
