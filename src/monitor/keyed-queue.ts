import { isPromiseLike, type MaybePromise } from '../async/index.js';

/**
 * Runs tasks one at a time per key and concurrently across keys: calls for one session are serialised (parallel
 * tool calls and concurrent requests cannot lose or reorder steps), different sessions never wait for each other.
 *
 * A task for an idle key starts at once, and one that finishes synchronously (a session in memory) leaves nothing
 * behind: no queue entry, no promise chained after it. Only a task still running when it returns is remembered, so
 * the next task for its key waits for it.
 */
export function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  // Keys whose task is running synchronously right now, with the gate that calls made from inside it (an event
  // listener asking the monitor about the same session) wait behind, so they start after it, in the order made.
  const running = new Map<string, Gate | undefined>();

  function remember<T>(key: string, result: Promise<T>): Promise<T> {
    tails.set(key, result);
    // Forget the key once nothing is queued behind this task, so idle sessions cost no memory here.
    const forget = () => {
      if (tails.get(key) === result) tails.delete(key);
    };
    result.then(forget, forget);
    return result;
  }

  function waitBehindRunning<T>(key: string, task: () => MaybePromise<T>): Promise<T> {
    let gate = running.get(key);
    if (!gate) running.set(key, (gate = createGate()));
    return remember(key, gate.opened.then(task, task));
  }

  function runNow<T>(key: string, task: () => MaybePromise<T>): Promise<T> {
    running.set(key, undefined);
    let outcome: MaybePromise<T>;
    try {
      outcome = task();
    } catch (error) {
      outcome = Promise.reject(error);
    }
    const gate = running.get(key);
    running.delete(key);
    // The calls made from inside the task are queued already (tails holds the last of them): they go once it ends.
    if (gate) gate.open(outcome);
    if (!isPromiseLike(outcome)) return Promise.resolve(outcome);
    const result = Promise.resolve(outcome);
    return gate ? result : remember(key, result);
  }

  return function run<T>(key: string, task: () => MaybePromise<T>): Promise<T> {
    const previous = tails.get(key);
    // A failed task does not fail the next one: it runs either way.
    if (previous) return remember(key, previous.then(task, task));
    return running.has(key) ? waitBehindRunning(key, task) : runNow(key, task);
  };
}

/** A promise opened from outside: it settles as the value given to `open` does. */
interface Gate {
  opened: Promise<unknown>;
  open(outcome: unknown): void;
}

function createGate(): Gate {
  let open!: (outcome: unknown) => void;
  const opened = new Promise<unknown>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
