/**
 * Maps `items` through `task` with at most `concurrency` tasks in flight, keeping the input order in the result.
 * Sessions are independent, so they may overlap; the bound keeps memory and open files in check.
 */
export async function mapBounded<Item, Result>(items: readonly Item[], concurrency: number, task: (item: Item, index: number) => Promise<Result>): Promise<Result[]> {
  const results = new Array<Result>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
