import type { Embedder } from '../../src/embed/index.js';

/** A deterministic embedder that records every call, for tests of the wrappers. */
export function recordingEmbedder(dimensions = 4) {
  const calls: { method: 'embedQuery' | 'embedDocuments'; texts: string[] }[] = [];
  const vectorOf = (text: string) => Array.from({ length: dimensions }, (_, i) => (text.charCodeAt(i % Math.max(1, text.length)) || 1) + i);
  const embedder: Embedder = {
    embedQuery: async (text) => {
      calls.push({ method: 'embedQuery', texts: [text] });
      return vectorOf(text);
    },
    embedDocuments: async (texts) => {
      calls.push({ method: 'embedDocuments', texts: [...texts] });
      return texts.map(vectorOf);
    },
  };
  return { embedder, calls, vectorOf };
}

/** A promise with its resolve and reject exposed, to hold an embedder call open. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
