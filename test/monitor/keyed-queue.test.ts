import { describe, expect, it } from 'vitest';
import { createKeyedQueue } from '../../src/monitor/keyed-queue.js';
import { andThen, attempt, isPromiseLike } from '../../src/async/index.js';

const later = <T>(value: T, ms = 5) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('createKeyedQueue', () => {
  it('runs a task for an idle key at once, and one that finishes synchronously leaves nothing queued', async () => {
    const run = createKeyedQueue();
    const order: string[] = [];
    const first = run('s1', () => {
      order.push('first');
      return 1;
    });
    order.push('after the call');
    const second = run('s1', () => {
      order.push('second');
      return 2;
    });
    expect(order).toEqual(['first', 'after the call', 'second']);
    expect([await first, await second]).toEqual([1, 2]);
  });

  it('keeps the order of calls for one key when a task waits, and runs other keys meanwhile', async () => {
    const run = createKeyedQueue();
    const order: string[] = [];
    const slow = run('s1', async () => {
      await later(null);
      order.push('s1 slow');
    });
    const next = run('s1', () => void order.push('s1 next'));
    const other = run('s2', () => void order.push('s2'));
    await Promise.all([slow, next, other]);
    expect(order).toEqual(['s2', 's1 slow', 's1 next']);
  });

  it('runs the next task after one that failed, and reports each failure to its own caller', async () => {
    const run = createKeyedQueue();
    const failedSync = run('s1', () => {
      throw new Error('sync');
    });
    const failedAsync = run('s1', () => Promise.reject(new Error('async')));
    const next = run('s1', () => 'ran');
    await expect(failedSync).rejects.toThrow('sync');
    await expect(failedAsync).rejects.toThrow('async');
    expect(await next).toBe('ran');
  });

  it('starts a call made from inside a running task after that task, in the order made', async () => {
    const run = createKeyedQueue();
    const order: string[] = [];
    let nested: unknown;
    const outer = run('s1', () => {
      order.push('outer starts');
      nested = run('s1', () => void order.push('nested'));
      order.push('outer ends');
    });
    const after = run('s1', () => void order.push('called after outer'));
    await Promise.all([outer, nested, after]);
    expect(order).toEqual(['outer starts', 'outer ends', 'nested', 'called after outer']);
  });

  it('holds a nested call behind an outer task that goes on asynchronously', async () => {
    const run = createKeyedQueue();
    const order: string[] = [];
    let nested: unknown;
    const outer = run('s1', async () => {
      nested = run('s1', () => void order.push('nested'));
      await later(null);
      order.push('outer done');
    });
    await Promise.all([outer, nested]);
    expect(order).toEqual(['outer done', 'nested']);
  });
});

describe('maybe-promise', () => {
  it('continues at once with a value and after a promise settles', async () => {
    expect(andThen(2, (n) => n * 2)).toBe(4);
    const promised = andThen(later(2), (n) => n * 2);
    expect(isPromiseLike(promised)).toBe(true);
    expect(await promised).toBe(4);
    expect(isPromiseLike({ then: 1 })).toBe(false);
  });

  it('attempt continues with the value, recovers from a throw or a rejection, and lets an error of the continuation through', async () => {
    const recover = (error: unknown) => `recovered from ${(error as Error).message}`;
    const double = (n: number) => `got ${n * 2}`;
    expect(attempt(() => 2, double, recover)).toBe('got 4');
    expect(attempt(() => { throw new Error('sync'); }, double, recover)).toBe('recovered from sync');
    expect(await attempt(() => later(2), double, recover)).toBe('got 4');
    expect(await attempt(() => Promise.reject(new Error('async')), double, recover)).toBe('recovered from async');
    expect(() => attempt(() => 2, () => { throw new Error('next'); }, recover)).toThrow('next');
    await expect(attempt(() => later(2), () => { throw new Error('next'); }, recover)).rejects.toThrow('next');
  });
});

describe('createKeyedQueue, synchronous tasks', () => {
  it('returns the value of a task that finished synchronously as it is, and a promise for one that did not', async () => {
    const run = createKeyedQueue();
    expect(run('s1', () => 'now')).toBe('now');
    const waiting = run('s1', () => later('later'));
    expect(isPromiseLike(waiting)).toBe(true);
    const queued = run('s1', () => 'after');
    expect(isPromiseLike(queued)).toBe(true); // it waits for the task before it
    expect([await waiting, await queued]).toEqual(['later', 'after']);
    expect(run('s1', () => 'idle again')).toBe('idle again');
  });
});
