/**
 * Runs tasks one at a time per key and concurrently across keys: calls for one session are serialised (parallel
 * tool calls and concurrent requests cannot lose or reorder steps), different sessions never wait for each other.
 */
export function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    // Forget the key once nothing is queued behind this task, so idle sessions cost no memory here.
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
}
