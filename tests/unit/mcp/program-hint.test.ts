import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nearestProgram } from "../../../src/mcp/program-hint.ts";
import { distrustForHostPrograms } from "../../../src/sandbox/host-program.ts";
import { tempDir } from "../../support/context.ts";

test("a program name one typo from one on PATH names it; a name near none, or a PATH folder that is missing, names nothing", () => {
  const bin = join(tempDir("bunker-hint-"), "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "notes-mcp"), "#!/bin/sh\n");
  chmodSync(join(bin, "notes-mcp"), 0o755);
  const PATH = `/no/such/folder::${bin}`;
  expect(nearestProgram("notes-mpc", PATH)).toBe("notes-mcp");
  expect(nearestProgram("notes-mcp-server-x", PATH)).toBeUndefined();
  expect(nearestProgram("zzzz", PATH)).toBeUndefined();
});

test("a name found only where a command can write is never suggested (the reviewer)", () => {
  const ws = join(tempDir("bunker-hint-ws-"), "ws");
  const bin = join(ws, "node_modules/.bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "notes-mcp"), "#!/bin/sh\n");
  chmodSync(join(bin, "notes-mcp"), 0o755);
  distrustForHostPrograms([ws]);
  try {
    expect(nearestProgram("notes-mpc", bin)).toBeUndefined();
    distrustForHostPrograms([join(ws, "elsewhere")]);
    expect(nearestProgram("notes-mpc", bin)).toBe("notes-mcp");
  } finally {
    distrustForHostPrograms([process.cwd()]);
  }
});
