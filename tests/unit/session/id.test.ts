// The shape of a session id given on the command line.
import { expect, test } from "bun:test";
import { sessionIdProblem } from "../../../src/session/id.ts";

test("four or more letters and digits can name a session; shorter or other characters say why not", () => {
  expect(sessionIdProblem("ab12")).toBeNull();
  expect(sessionIdProblem(" AB12cdefgh ")).toBeNull();
  expect(sessionIdProblem("zz")).toBe('give at least 4 characters of the session id, not "zz" (bunker --resume lists them)');
  expect(sessionIdProblem("ab-12")).toBe('"ab-12" is not a session id (ids are letters and digits; bunker --resume lists them)');
});
