import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

/** Issue 18, item 7: `npm run example:proxy` runs the demo through the proxy with the openai client, streamed and not. */
it.each([{ args: [] as string[], shown: '' }, { args: ['--stream'], shown: ' --stream' }])('npm run example:proxy$shown: the early refund is refused, the next call corrected, the procedure followed', async ({ args }) => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' };
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'examples/proxy/conversation.ts', ...args], { cwd: ROOT, env });
  const lines = stdout.split('\n').map((line) => line.trimEnd()).filter((line) => /^(agent|tool|customer)/.test(line));
  expect(lines).toEqual([
    'customer  Hi, I want a refund for order A-1042, it arrived broken.',
    // The user reads the configured message (refusal_message); why goes to the model, in its next system prompt.
    "agent     Sorry, I can't do that yet.",
    'customer  OK, please go ahead.',
    'agent     First I need to confirm who you are.',
    'tool      verify_identity -> Identity verified.',
    'tool      issue_refund -> Refund of $42 issued.',
    'agent     Your refund of $42 is on its way. Is there anything else I can help with?',
  ]);
  expect(stdout).toContain('panoptes_proxy_refused_tool_calls_total 1');
});
