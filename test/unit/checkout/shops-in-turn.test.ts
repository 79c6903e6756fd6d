import { shopsInTurn } from '../../../src/checkout/reconcile-every-shop';

describe('shopsInTurn', () => {
  it('starts each pass one shop further on, and wraps around', () => {
    const turns = { next: 0 };
    const ids = ['a', 'b', 'c'];
    const passes = [1, 2, 3, 4].map(() => shopsInTurn(ids, turns));
    expect(passes).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
      ['a', 'b', 'c'],
    ]);
  });

  it('keeps its place within the shops there are when one is removed, and has none to go over when none is left', () => {
    const turns = { next: 2 };
    expect(shopsInTurn(['a', 'b'], turns)).toEqual(['a', 'b']);
    expect(turns.next).toBe(1);
    expect(shopsInTurn(['a', 'b', 'c'], turns)).toEqual(['b', 'c', 'a']);
    expect(shopsInTurn([], turns)).toEqual([]);
    expect(turns.next).toBe(1);
  });
});
