import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

it('npm run example:judge: the support turn rubric and the e-mail tool-call rubric decide offline', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'examples/rubrics/judge-offline.ts'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  const lines = stdout.trim().split('\n');
  expect(lines.map((line) => line.replace(/ \(.*$/, ''))).toEqual([
    'support reply "I\'m sorry! You will get $120 back by Friday.": deny',
    'support reply "I\'m sorry! I\'ve opened an assessment; once it is done we will tell you what we can offer.": allow',
    'send_email to bob@example.com: allow',
    'send_email to eve@evil.test: ask',
  ]);
  expect(lines[3]).toContain("rubric 'outgoing_mail' failed with score 0.33: requested 0 (The recipient comes from a document, not from the user.)");
});
