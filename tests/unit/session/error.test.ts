// The one SessionError class: what the store throws is what the command line
// catches (it imports the error without loading bun:sqlite) and turns into
// its exit code.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { SessionError } from "../../../src/session/error.ts";
import { SessionStore } from "../../../src/session/store.ts";
import { tempDir } from "../../support/context.ts";
import { thrown } from "../../support/thrown.ts";

test("a wrong id from the store is the command line's SessionError, exit code 2; other failures default to 1", () => {
  const store = SessionStore.open(join(tempDir("bunker-error-"), "sessions.db"));
  const err = thrown(() => store.find("zz"), SessionError);
  expect(err.exitCode).toBe(2);
  expect(err.message).toStartWith("give at least 4 characters of the session id");
  expect(err.name).toBe("SessionError");
  expect(new SessionError("the store is damaged").exitCode).toBe(1);
  store.close();
});
