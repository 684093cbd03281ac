/**
 * Maps `items` through `task` with at most `concurrency` tasks in flight, and returns the results in the items'
 * order (not the order they finished). A task that rejects rejects the whole map, as `Promise.all` does; callers
 * that must not fail make their task total.
 * @example
 * await mapWithConcurrency(criteria, 10, (criterion) => evaluate(criterion));
 */
export async function mapWithConcurrency<Item, Result>(items: readonly Item[], concurrency: number, task: (item: Item, index: number) => Promise<Result>): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
