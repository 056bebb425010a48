// Core's SpareList (the record recycler of the pool's and the arena's block lists) keeps at most
// its capacity of the records given back, hands out the one given back last, makes a record only
// when it keeps none, and deletes what it keeps when it goes; what was taken stays the caller's.
import { expect, it } from 'vitest';
import { spareListCheck } from '../index.js';

it('keeps up to 4 records, hands out the last one given back, and deletes only what it keeps', () => {
  expect(spareListCheck()).toEqual({
    steps: [
      'take 6 from none',
      'recycle the 6',
      'take 4',
      'take 1 more',
      'recycle 2',
      'destroy the list',
      'delete the 3 held',
    ],
    made: [6, 6, 6, 7, 7, 7, 7],
    live: [6, 4, 4, 5, 5, 3, 0],
    kept: [0, 4, 0, 0, 2, 0, 0],
    takenBack: 'r3,r2,r1,r0',
  });
});
