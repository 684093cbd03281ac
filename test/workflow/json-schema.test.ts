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

describe('workflow.schema.json as an editor sees it', () => {
  it('accepts every example workflow and rejects a misspelt key', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const { parse } = await import('yaml');
    const { readdirSync } = await import('node:fs');
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(workflowJsonSchema());
    const folder = new URL('../../examples/workflows/', import.meta.url);
    const files = readdirSync(folder).filter((name) => name.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const document: unknown = parse(readFileSync(new URL(file, folder), 'utf8'));
      expect(validate(document), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ name: 'x', states: [{ name: 'a', intial: true }] })).toBe(false);
  });
});
