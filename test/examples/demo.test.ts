import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

/** The README's main job: `npm run demo` tells the story of a refusal and a corrected agent, offline. */
it('npm run demo: the refund is refused before verification, then the agent follows the workflow', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'examples/support-demo.ts'], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' },
  });
  const lines = stdout.split('\n').map((line) => line.trimEnd());
  expect(lines).toContain('panoptes  refused issue_refund before it ran: verify_before_account_action');
  expect(stdout).toMatch(/panoptes {2}added to this call \(system-prompt-append\): "You tried to act on the customer's account/);
  expect(lines).toContain('  timeline   greeting -> verify_identity -> account_action -> resolution');
  expect(stdout).toContain('No constraint was violated');
});
