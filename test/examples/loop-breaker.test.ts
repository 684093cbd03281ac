import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

/** Issue 5, item 7: `npm run example:loops` shows both kinds of loop caught, nudged, and the agent changing course. */
it('npm run example:loops: a semantic loop and a structural loop are nudged, and the agent changes course', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' };
  delete env.OPENAI_API_KEY; // the offline, scripted run
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'examples/loop-breaker.ts'], { cwd: ROOT, env });
  const lines = stdout.split('\n').map((line) => line.trimEnd());
  const at = (text: string) => {
    const index = lines.findIndex((line) => line.includes(text));
    expect(index, `a line with: ${text}`).toBeGreaterThanOrEqual(0);
    return index;
  };

  // Rephrased searches: the third is caught, and the hint is in the next request, after which the agent stops searching.
  const semantic = at('panoptes  semantic loop (detection 1): step 3 is 0.96 similar to step 2 (other words, same intent). A hint goes into the next request.');
  const firstHint = at('panoptes  added to this request only: "You seem to be repeating yourself: your latest step is almost the same as one you took just before.');
  const firstFetch = at('agent     calls fetch_page({"url":"https://support.acme.example/x200/warranty"})');
  expect(lines.filter((line) => line.includes('calls search_docs'))).toHaveLength(3);
  expect(semantic).toBeLessThan(firstHint);
  expect(firstHint).toBeLessThan(firstFetch);

  // The failing page: hint after three failures, a stronger one after the fourth, then another tool.
  const structural = at('panoptes  repeated-error loop (detection 1): `fetch_page` failed 3 times in a row with the same arguments (steps 4, 5, 6).');
  const stronger = at('panoptes  added to this request only: "You are still repeating yourself after being told so: `fetch_page` failed 4 times in a row');
  const specs = at('agent     calls get_product_specs({"sku":"X200"})');
  expect(firstFetch).toBeLessThan(structural);
  expect(structural).toBeLessThan(stronger);
  expect(stronger).toBeLessThan(specs);
  expect(lines.filter((line) => line.includes('calls fetch_page'))).toHaveLength(4);

  expect(lines).toContain('agent     Your Acme X200 kettle has a warranty of 2 years from the date of purchase. The support site is down right now, so I took this from the product database.');
  expect(stdout).toContain('answered in 9 model calls; nothing had to be stopped.');
  expect(stdout).toContain("The thread's history holds no hint");
  expect(stdout).not.toContain('The run ends');
});
