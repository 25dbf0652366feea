import { afterEach, expect, test } from "bun:test";
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { distrustForHostPrograms, hostProgram } from "../../../src/sandbox/host-program.ts";
import { tempDir } from "../../support/context.ts";

function program(folder: string, name: string): string {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, name);
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}

function layout() {
  const base = realpathSync(tempDir("bunker-hostprog-"));
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  program(join(ws, "bin"), "tool");
  const trusted = program(outside, "tool");
  return { base, ws, outside, trusted };
}

afterEach(() => distrustForHostPrograms([process.cwd()]));

test("a program in the workspace on PATH is passed over for the next one outside it", () => {
  const { ws, outside, trusted } = layout();
  distrustForHostPrograms([ws]);
  expect(hostProgram("tool", `${join(ws, "bin")}:${outside}`)).toBe(trusted);
  // The control: the same PATH with another folder distrusted takes the workspace's first.
  distrustForHostPrograms([outside]);
  expect(hostProgram("tool", `${join(ws, "bin")}:${outside}`)).toBe(join(ws, "bin/tool"));
});

test("relative and empty PATH entries are never searched: they name the working directory", () => {
  const { ws } = layout();
  distrustForHostPrograms([join(ws, "elsewhere")]);
  const cwd = process.cwd();
  process.chdir(ws);
  try {
    expect(hostProgram("tool", "./bin:bin")).toBeNull();
    expect(hostProgram("tool", ":")).toBeNull();
  } finally {
    process.chdir(cwd);
  }
});

test("a folder or a program linked into the workspace, or through it, is passed over; the answer is the path found", () => {
  const { base, ws, outside, trusted } = layout();
  distrustForHostPrograms([ws]);
  symlinkSync(join(ws, "bin"), join(base, "linked-bin"));
  expect(hostProgram("tool", `${join(base, "linked-bin")}:${outside}`)).toBe(trusted);
  mkdirSync(join(base, "links"));
  symlinkSync(join(ws, "bin/tool"), join(base, "links/tool"));
  expect(hostProgram("tool", `${join(base, "links")}:${outside}`)).toBe(trusted);
  // A link that leads somewhere safe is fine, and keeps its name (a shim goes by the name it is run as).
  mkdirSync(join(base, "safe-links"));
  symlinkSync(trusted, join(base, "safe-links/tool"));
  expect(hostProgram("tool", join(base, "safe-links"))).toBe(join(base, "safe-links/tool"));
  // A safe end reached through a link in the workspace: the command could point that link elsewhere.
  symlinkSync(trusted, join(ws, "hop"));
  mkdirSync(join(base, "via"));
  symlinkSync(join(ws, "hop"), join(base, "via/tool"));
  expect(hostProgram("tool", `${join(base, "via")}:${outside}`)).toBe(trusted);
});

test("a file that is not executable, or a folder of that name, is not a program", () => {
  const { base, ws } = layout();
  distrustForHostPrograms([ws]);
  writeFileSync(join(base, "plain"), "x");
  mkdirSync(join(base, "d/plain"), { recursive: true });
  expect(hostProgram("plain", `${base}:${join(base, "d")}`)).toBeNull();
});

test("with PATH empty, the system bin folders are still searched", () => {
  distrustForHostPrograms(["/nonexistent-ws"]);
  expect(hostProgram("sh", "")).toBe("/usr/bin/sh");
});
