import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `file` whole or not at all. The text goes to a temporary file in the same directory (the same file system,
 * where a rename is atomic), is flushed to disk, then renamed over `file`: a reader, or a run killed midway (a closed
 * pipe, Ctrl-C), finds the old file or the new one, never a truncated one. On failure the temporary file is removed
 * and the error rethrown.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  // Hidden and unique, so two runs writing the same report never share a temporary file.
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

const REASONS: Record<string, string> = {
  ENOENT: 'its folder does not exist',
  ENOTDIR: 'its folder does not exist',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

/**
 * Why `writeFileAtomic` failed, in terms of the file the user named: Node's own message names the temporary file,
 * which the user never asked for. Errors without a known code keep their message.
 */
export function writeErrorReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (code === undefined ? undefined : REASONS[code]) ?? String((error as Error | undefined)?.message ?? error);
}
