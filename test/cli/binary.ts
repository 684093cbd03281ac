/** The built `panoptes` binary in a child process, as users run it. Needs the build, which `npm test` runs first. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const BIN = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** Runs `panoptes ...args` in `cwd` without colours; its exit code and output, whether it failed or not. */
export async function panoptes(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
