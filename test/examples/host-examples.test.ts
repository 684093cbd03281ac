import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

/** The README's host examples, run offline as a reader would: each tells the refused call, then the guidance, and ends with a clean trace. */
it.each(['examples/langchain-agent.ts', 'examples/langgraph-graph.ts', 'examples/ai-sdk-agent.ts'])('%s runs offline and tells its story', async (file) => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' };
  delete env.OPENAI_API_KEY;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, file], { cwd: ROOT, env });
  expect(stdout).toContain('trace       greeting -> verify_identity -> account_action -> resolution');
  expect(stdout).toContain('refusals    account_action (verify_before_account_action)');
  expect(stdout).toContain('Panoptes refused the call before it ran');
  // Told in the order it happened: the refusal, then the guidance in the next model call.
  expect(stdout.indexOf('refused issue_refund before it ran')).toBeGreaterThan(-1);
  expect(stdout.indexOf('refused issue_refund before it ran')).toBeLessThan(stdout.indexOf('added guidance'));
});
