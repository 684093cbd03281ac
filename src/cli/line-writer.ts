/** The part of `process.stdout` and `process.stderr` a line writer uses. */
export interface WritableLines {
  write(text: string): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  readonly destroyed?: boolean;
}

/**
 * Writes lines to `stream` until its reader goes away, then drops them without a word: `panoptes validate … | head -1`
 * closes the pipe after one line. Node ignores SIGPIPE, so the next write fails with `EPIPE`, raised as an 'error'
 * event that would otherwise crash the process with a stack trace. The command goes on (an `--html` report is still
 * written) and exits with its own status. Any other stream error is rethrown, as Node would have thrown it.
 */
export function lineWriter(stream: WritableLines): (line: string) => void {
  let closed = false;
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
  return function writeLine(line) {
    if (closed || stream.destroyed) return;
    stream.write(`${line}\n`);
  };
}
