// What a call threw, for tests that check an error's fields: the error when
// it is of the expected class; anything else (or nothing) fails the test.
export function thrown<E extends Error>(fn: () => unknown, type: abstract new (...args: never[]) => E): E {
  try {
    fn();
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error(`expected a ${type.name}, but nothing was thrown`);
}

/** The same for a call that returns a promise: what it rejected with. */
export async function thrownAsync<E extends Error>(fn: () => Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof type) return err;
    throw err;
  }
  throw new Error(`expected a ${type.name}, but nothing was thrown`);
}
