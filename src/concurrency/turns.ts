/**
 * Steps that each take the CPU for a while (signing a transaction: about 1.5 ms of JavaScript secp256k1 here), one per
 * turn of the event loop, in the order they asked: `await nextTurn()` resolves in a macrotask of its own after the
 * previous caller's, so timers and I/O (a verify's answer, an HTTP request) run between two of them. Without it,
 * twenty settles whose simulations come back in one JSON-RPC batch sign their twenty transactions in one turn, and
 * every other request waits behind all of them.
 */
export function createTurns(): () => Promise<void> {
  let tail: Promise<void> = Promise.resolve();
  return function nextTurn(): Promise<void> {
    const turn = tail.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    tail = turn;
    return turn;
  };
}
