import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

/** Issue 16, item 4: every criterion of every case answered with verified citations or an honest uncertain. */
it('npm run example:verify: verdicts with verified citations, a retry, and a loop turned into an honest uncertain', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' };
  delete env.OPENAI_API_KEY; // the offline, scripted run
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, 'examples/verification/verify.ts'], { cwd: ROOT, env });
  const lines = stdout.split('\n').map((line) => line.trimEnd());
  const verdicts = lines.filter((line) => /^ {2}\S+ +(met|not_met|uncertain)/.test(line)).map((line) => line.trim().replace(/\s+/g, ' '));
  expect(verdicts).toEqual([
    'necessity met confidence 0.92',
    'diagnosis_code met confidence 0.95',
    'no_repeat_imaging met confidence 0.8',
    'necessity not_met confidence 0.88',
    'diagnosis_code met confidence 0.95',
    'no_repeat_imaging not_met confidence 0.9',
    'necessity uncertain confidence 0.4',
    'diagnosis_code not_met confidence 0.85',
    'no_repeat_imaging met confidence 0.8',
    'necessity met confidence 0.92',
    'diagnosis_code met confidence 0.95',
    'no_repeat_imaging uncertain confidence 0.3',
  ]);
  // every verdict cites the policy, and no citation was rejected
  expect(lines.filter((line) => line.startsWith('    cites imaging-policy.md'))).toHaveLength(12);
  expect(stdout).not.toContain('rejected');
  // the first call's 429 was retried (4 attempts for 3 iterations); the looping search was served from the cache, then ended by the hint
  expect(lines).toContain('    usage: 3 iterations, 4 model attempts, 0 cached tool calls');
  expect(lines).toContain('    trace: search_policy -> get_case_facts -> search_policy -> search_policy (cached) -> search_policy (cached) -> search_policy (cached) -> finish');
});
