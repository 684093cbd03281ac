/**
 * At most `limit` tasks at once; the rest wait in order. `acquire` resolves with a release function; a waiter whose
 * signal aborts leaves the queue (its judgment timed out) and never holds a slot.
 */
export function createLimiter(limit: number) {
  let active = 0;
  const waiting: Array<{ grant: () => void }> = [];
  const release = () => {
    active--;
    const next = waiting.shift();
    if (next) {
      active++;
      next.grant();
    }
  };
  return {
    acquire(signal: AbortSignal): Promise<() => void> {
      if (active < limit) {
        active++;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve, reject) => {
        const waiter = {
          grant: () => {
            signal.removeEventListener('abort', onAbort);
            resolve(once(release));
          },
        };
        const onAbort = () => {
          const index = waiting.indexOf(waiter);
          if (index >= 0) waiting.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.push(waiter);
      });
    },
    /** Tasks running now and tasks waiting. */
    load: () => ({ active, waiting: waiting.length }),
  };
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
