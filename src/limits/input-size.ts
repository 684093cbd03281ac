import { stat, readFile } from 'node:fs/promises';
import { InvalidOptionError } from '../errors/index.js';

/** Largest workflow or rulebase text accepted, in bytes, unless `maxBytes` says otherwise (1 MiB). */
export const DEFAULT_MAX_BYTES = 1024 * 1024;

/** What a too-large input is called in messages. */
export type InputKind = 'workflow' | 'rulebase' | 'scenario' | 'rubric file';

/** Why an input was refused for its size: the message and hint of the diagnostic each loader reports. */
export interface InputTooLarge {
  bytes: number;
  message: string;
  hint: string;
}

/**
 * Whether text (or a file of `input` bytes) is over `maxBytes`, checked before any parsing so a huge input costs a
 * length check, not a parse. UTF-8 never takes fewer bytes than UTF-16 code units, so short text skips the count.
 */
export function inputTooLarge(input: string | number, maxBytes: number, kind: InputKind): InputTooLarge | undefined {
  if (typeof input === 'string' && input.length <= maxBytes / 3) return undefined; // cannot exceed: skip the count
  const bytes = typeof input === 'number' ? input : utf8Length(input);
  if (bytes <= maxBytes) return undefined;
  const file = kind === 'workflow' ? 'a workflow file' : kind === 'scenario' ? 'a scenario file' : kind === 'rubric file' ? 'a rubric file' : 'a rules file';
  return {
    bytes,
    message: `the ${kind} is ${bytes.toLocaleString('en-US')} bytes; the limit is ${maxBytes.toLocaleString('en-US')} bytes`,
    hint: `a ${kind} this large is likely not ${file}; raise the \`maxBytes\` option if it is`,
  };
}

/**
 * Reads a text file unless its size, from `stat`, is over `maxBytes`: a 10 GB file is refused without being read.
 * @throws whatever `stat` and `readFile` throw (a missing file); the loaders turn it into their own diagnostic.
 */
export async function readTextWithin(path: string, maxBytes: number, kind: InputKind): Promise<{ text: string } | { tooLarge: InputTooLarge }> {
  const { size } = await stat(path);
  const tooLarge = inputTooLarge(size, maxBytes, kind);
  return tooLarge ? { tooLarge } : { text: await readFile(path, 'utf8') };
}

/** @throws {InvalidOptionError} unless `maxBytes` is a positive number. */
export function assertMaxBytes(maxBytes: unknown): void {
  if (typeof maxBytes !== 'number' || !(maxBytes > 0)) {
    throw new InvalidOptionError({ parameter: 'maxBytes', value: maxBytes, fix: `Pass a positive number of bytes; the default is ${DEFAULT_MAX_BYTES} (1 MiB).` });
  }
}

/** UTF-8 length of a string, counted without `Buffer`, so parsing text also works outside Node. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      bytes += 4; // a surrogate pair is one 4-byte character
      index++;
    } else bytes += 3;
  }
  return bytes;
}
