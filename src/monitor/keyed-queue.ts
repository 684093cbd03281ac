import { isPromiseLike, type MaybePromise } from '../async/index.js';

/**
 * Runs tasks one at a time per key and concurrently across keys: calls for one session are serialised (parallel
 * tool calls and concurrent requests cannot lose or reorder steps), different sessions never wait for each other.
 *
 * A task for an idle key starts at once, and one that finishes synchronously (a session in memory) returns its value
 * as it is and leaves nothing behind: no queue entry, no promise. Only a task still running when it returns is
 * remembered, so the next task for its key waits for it. A task that throws gives a rejected promise.
 */
export function createKeyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  // The tasks running synchronously right now, innermost last (a task may call for another key), each with the gate
  // that calls made from inside it for its own key (an event listener asking the monitor about the same session)
  // wait behind, so they start after it, in the order made. A short list rather than a map: a model call's path
  // then does no hashing here.
  const running: Array<{ key: string; gate: Gate | undefined }> = [];
  const runningTask = (key: string) => running.find((frame) => frame.key === key);

  function remember<T>(key: string, result: Promise<T>): Promise<T> {
    tails.set(key, result);
    // Forget the key once nothing is queued behind this task, so idle sessions cost no memory here.
    const forget = () => {
      if (tails.get(key) === result) tails.delete(key);
    };
    result.then(forget, forget);
    return result;
  }

  function waitBehind<T>(frame: { gate: Gate | undefined }, key: string, task: () => MaybePromise<T>): Promise<T> {
    frame.gate ??= createGate();
    return remember(key, frame.gate.opened.then(task, task));
  }

  function runNow<T>(key: string, task: () => MaybePromise<T>): MaybePromise<T> {
    const frame = { key, gate: undefined as Gate | undefined };
    running.push(frame);
    let outcome: MaybePromise<T>;
    try {
      outcome = task();
    } catch (error) {
      outcome = Promise.reject(error);
    }
    running.pop();
    const { gate } = frame;
    // The calls made from inside the task are queued already (tails holds the last of them): they go once it ends.
    if (gate) gate.open(outcome);
    if (!isPromiseLike(outcome)) return outcome;
    const result = Promise.resolve(outcome);
    return gate ? result : remember(key, result);
  }

  return function run<T>(key: string, task: () => MaybePromise<T>): MaybePromise<T> {
    const previous = tails.size === 0 ? undefined : tails.get(key);
    // A failed task does not fail the next one: it runs either way.
    if (previous) return remember(key, previous.then(task, task));
    const frame = running.length === 0 ? undefined : runningTask(key);
    return frame ? waitBehind(frame, key, task) : runNow(key, task);
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
