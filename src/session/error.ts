// The error of a session that cannot be found or read, apart from store.ts so
// what only reports it (the command line) does not load bun:sqlite.

/** A session that cannot be found or read: the message says what to do; `exitCode` 2 for a wrong id, 1 otherwise. */
export class SessionError extends Error {
  override name = "SessionError";
  constructor(message: string, readonly exitCode: 1 | 2 = 1, opts?: { cause: unknown }) {
    super(message, opts);
  }
}
