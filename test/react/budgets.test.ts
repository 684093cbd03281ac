import { describe, expect, it } from 'vitest';
import { budgetExceeded, costOf, mapWithConcurrency, priceOf, truncateText } from '../../src/index.js';

describe('budgets', () => {
  it('prices a dated model name by its longest listed prefix', () => {
    const table = { 'gpt-4o': { input: 2.5, output: 10 }, 'gpt-4o-mini': { input: 0.15, output: 0.6 } };
    expect(priceOf(table, 'gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf(table, 'claude-3')).toBeUndefined();
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 500_000 }, { input: 0.15, output: 0.6 })).toBeCloseTo(0.45, 9);
  });
  it('lets a run use all of its budget and stops it past it', () => {
    expect(budgetExceeded({ inputTokens: 5000, outputTokens: 1000, costUsd: 0 }, { maxTokens: 6000 })).toBeUndefined();
    expect(budgetExceeded({ inputTokens: 5000, outputTokens: 1001, costUsd: 0 }, { maxTokens: 6000 })).toBe('budget_tokens');
    expect(budgetExceeded({ inputTokens: 0, outputTokens: 0, costUsd: 0.051 }, { maxCostUsd: 0.05 })).toBe('budget_cost');
  });
  it('cuts text at the limit with an ellipsis', () => {
    expect(truncateText('abc', 5)).toBe('abc');
    expect(truncateText('abcdefgh', 5)).toBe('abcd…');
  });
});

describe('mapWithConcurrency', () => {
  it('keeps the order of the items and the limit on tasks in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapWithConcurrency([5, 1, 4, 2, 3], 2, async (item) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, item));
      inFlight--;
      return item * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });
});
