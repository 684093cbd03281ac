import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { rubricJsonSchema } from '../../src/index.js';

describe('rubric.schema.json', () => {
  it('matches the committed file', () => {
    const committed: unknown = JSON.parse(readFileSync(new URL('../../rubric.schema.json', import.meta.url), 'utf8'));
    expect(committed, 'rubric.schema.json is stale: run `npm run schema` and commit the result').toEqual(rubricJsonSchema());
  });

  it('accepts the example rubric files and rejects a misspelt key, as an editor sees them', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(rubricJsonSchema());
    const folder = new URL('../../examples/rubrics/', import.meta.url);
    const files = readdirSync(folder).filter((name) => name.endsWith('.yaml'));
    expect(files).toHaveLength(2);
    for (const file of files) expect(validate(parse(readFileSync(new URL(file, folder), 'utf8'))), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    expect(validate({ policy: { rules: ['x'], on_eror: 'deny' } })).toBe(false);
    expect(validate({ rubrics: [{ id: 'x', description: 'd', scope: 'turn', criteria: [{ id: 'c', description: 'd' }], pass_at: 1, on_fail: 'warn' }] })).toBe(false); // on_error is required
  });
});
