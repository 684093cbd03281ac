import { formatDuration, statusWords, type VerifyTally } from './summary.js';

/** Where progress goes: stderr. A terminal gets a bar redrawn in place; anything else plain lines. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Redraws of the bar per second, at most: a job of thousands of short runs would otherwise spend its time drawing. */
const REDRAWS_PER_SECOND = 10;

/**
 * The progress of a verify job. On a terminal, one line redrawn in place: `verify [████░░░░] 120/500 24% · met 80 ·
 * not met 30 · uncertain 10 · 12.3 s · 39 s left`. Elsewhere (a pipe, CI logs) a plain line at each tenth of the
 * job, so a log shows progress without a line per result.
 */
export function verifyProgress(stream: ProgressStream, total: number, tally: VerifyTally, { resumed = 0, now = () => performance.now() }: { resumed?: number; now?: () => number } = {}) {
  const started = now();
  let done = resumed;
  let drawn = false;
  let lastDraw = -Infinity;
  let lastTenth = Math.floor((resumed / Math.max(1, total)) * 10);
  const describe = () => {
    const elapsed = now() - started;
    const ran = done - resumed;
    const left = ran > 0 && done < total ? ` · ${formatDuration(((total - done) * elapsed) / ran)} left` : '';
    return `${done}/${total} ${Math.floor((done / Math.max(1, total)) * 100)}% · ${statusWords(tally.total)} · ${formatDuration(elapsed)}${left}`;
  };
  const draw = () => {
    const width = 24;
    const filled = Math.round((done / Math.max(1, total)) * width);
    const line = `verify [${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${describe()}`;
    stream.write(`\r\u001b[2K${stream.columns ? line.slice(0, stream.columns - 1) : line}`);
    drawn = true;
    lastDraw = now();
  };
  return {
    /** One more result is in. */
    tick() {
      done++;
      if (stream.isTTY) {
        if (done === total || now() - lastDraw >= 1000 / REDRAWS_PER_SECOND) draw();
        return;
      }
      const tenth = Math.floor((done / Math.max(1, total)) * 10);
      if (tenth > lastTenth || done === total) {
        lastTenth = tenth;
        stream.write(`verify: ${describe()}\n`);
      }
    },
    /** Shows where the job starts (a resumed one is part done). */
    start() {
      if (stream.isTTY) draw();
      else if (resumed > 0) stream.write(`verify: resuming at ${resumed}/${total}\n`);
    },
    /** Clears the bar, so the summary starts on a clean line. */
    finish() {
      if (stream.isTTY && drawn) stream.write('\r\u001b[2K');
    },
  };
}
