import { describe, expect, it } from 'vitest';
import { createTransitionGraph } from '../../src/temporal/index.js';

describe('createTransitionGraph', () => {
  const graph = createTransitionGraph({
    states: ['a', 'b', 'c'],
    transitions: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }, { from: 'a', to: 'b' }],
  });

  it('lists successors once, in order', () => {
    expect(graph.successors('a')).toEqual(['b', 'c']);
  });

  it('lets a state without listed transitions, or an unknown one, go anywhere', () => {
    expect(graph.successors('b')).toEqual(['a', 'b', 'c']);
    expect(graph.successors('unknown')).toEqual(['a', 'b', 'c']);
  });
});
