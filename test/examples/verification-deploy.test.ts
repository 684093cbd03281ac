import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const HERE = new URL('../../examples/verification/', import.meta.url);

/** The deployment of the example (LangGraph Studio, `langgraph-cli dev`): langgraph.json names a module and its graph. */
it('examples/verification/langgraph.json serves a named verifier that takes { caseBundle, criterion } and gives { result }', async () => {
  const config = JSON.parse(readFileSync(new URL('langgraph.json', HERE), 'utf8')) as { graphs: Record<string, string>; dependencies: string[] };
  expect(JSON.parse(readFileSync(new URL(`${config.dependencies[0]}/package.json`, HERE), 'utf8')).name).toBe('panoptes');
  const [file, exported] = config.graphs.verifier!.split(':');
  const graph = (await import(new URL(file!, HERE).href))[exported!];
  expect(graph.name).toBe('panoptes_verifier');
  expect(Object.keys(graph.builder._inputDefinition)).toEqual(['caseBundle', 'criterion']);
  expect(graph.outputChannels).toEqual(['result']);
  const drawn = await graph.getGraphAsync();
  expect(Object.keys(drawn.nodes)).toEqual(expect.arrayContaining(['prepare', 'model', 'tools', 'settle', 'conclude']));
  // it runs offline, as the server would run it (with a thread of the server's)
  const { result } = await graph.invoke({ caseBundle: { icd10_code: 'M54.16', diagnosis: 'Low back pain' }, criterion: { id: 'diagnosis_code', text: 'The request states the diagnosis with an ICD-10 code.' } });
  expect(result).toMatchObject({ criterionId: 'diagnosis_code', status: 'met' });
});
