import { describe, expect, it } from '@jest/globals';
import { KeyedListeners } from './keyed-listeners.js';

describe('KeyedListeners', () => {
  it("gives each listener its own key's messages only, until it stops", () => {
    const listeners = new KeyedListeners<number>();
    const a: number[] = [];
    const b: number[] = [];
    const stopA = listeners.on('a', (n) => a.push(n));
    listeners.on('b', (n) => b.push(n));
    listeners.emit('a', 1);
    listeners.emit('b', 2);
    listeners.emit('c', 3);
    stopA();
    listeners.emit('a', 4);
    expect(a).toEqual([1]);
    expect(b).toEqual([2]);
  });
});
