/**
 * A stable, dependency-free string hash for session ids derived from a conversation's opening.
 *
 * Not cryptographic: it only has to keep unrelated conversations apart. Two 53-bit lanes (cyrb53 with different
 * seeds) make a collision between two live conversations vanishingly unlikely, and it needs no `node:crypto`, so
 * the adapter also runs in edge runtimes where the AI SDK is common.
 * @example
 * stableHash(['You are a support agent.', 'Refund my order.']) // '1f0c9a2b3d4e5f6a7b8c9d0e1f2a3'-like, same every run
 */
export function stableHash(parts: readonly string[]): string {
  // A separator that cannot occur inside a part keeps ['ab', 'c'] and ['a', 'bc'] apart.
  const text = parts.map((part) => `${part.length}:${part}`).join('\u0000');
  return lane(text, 0x9e3779b9).toString(16).padStart(14, '0') + lane(text, 0x85ebca6b).toString(16).padStart(14, '0');
}

/** cyrb53: a 53-bit hash with good avalanche, after bryc's public-domain original. */
function lane(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
