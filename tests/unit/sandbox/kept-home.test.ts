// The sandbox home kept for a workspace (src/sandbox/kept-home.ts): one owner-only
// folder per workspace in bunker's state folder, shown at the home's path
// (read-write, or read-only to a line that only reads); none where its files
// would be the workspace's, or where the folder is not bunker's own.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { bubblewrapArgs } from "../../../src/sandbox/bubblewrap.ts";
import { describeView } from "../../../src/sandbox/explain.ts";
import { KEPT_CACHES, keptHome, KEPT_HOMES } from "../../../src/sandbox/kept-home.ts";
import { sandboxMounts, shownAs, type HostFs, type SandboxSpec } from "../../../src/sandbox/spec.ts";
import { tempDir } from "../../support/context.ts";

test("one folder per workspace, owner-only, in the state folder; the same workspace gets the same one", () => {
  const state = join(tempDir("bunker-kept-"), "state");
  const a = keptHome(state, "/work/a", "k")!;
  expect(a).toStartWith(join(state, KEPT_HOMES) + "/");
  expect(statSync(a).mode & 0o777).toBe(0o700);
  expect(keptHome(state, "/work/a", "k")).toBe(a);
  expect(keptHome(state, "/work/b", "k")).not.toBe(a);
  // The same workspace under other grants: caches of their own (red team 10's F04).
  expect(keptHome(state, "/work/a", "k2")).not.toBe(a);
  // Every cache's folder is there to be mounted.
  for (const cache of KEPT_CACHES) expect(existsSync(join(a, cache))).toBe(true);
});

test("a kept home no session used for 30 days is removed when another is first used; one used since stays (reviewer's R10-04)", () => {
  const state = join(tempDir("bunker-kept-"), "state");
  const old = join(state, KEPT_HOMES, "0123456789abcdef");
  const recent = join(state, KEPT_HOMES, "fedcba9876543210");
  for (const d of [old, recent]) mkdirSync(join(d, ".cache/pip"), { recursive: true });
  const day = 86_400_000;
  utimesSync(old, new Date(Date.now() - 31 * day), new Date(Date.now() - 31 * day));
  utimesSync(recent, new Date(Date.now() - 29 * day), new Date(Date.now() - 29 * day));
  const a = keptHome(state, "/work/a", "k")!;
  expect(existsSync(old)).toBe(false);
  expect(existsSync(recent)).toBe(true);
  expect(Date.now() - statSync(a).mtimeMs).toBeLessThan(60_000);
});

test("none when the state folder is in the workspace or holds it, or its folder is a link", () => {
  const base = tempDir("bunker-kept-");
  expect(keptHome(join(base, "ws", ".state"), join(base, "ws"), "k")).toBeNull();
  expect(keptHome(base, join(base, "ws"), "k")).toBeNull();
  // A link where the homes go (made by someone else): not bunker's to hand to a command.
  const state = join(base, "state");
  mkdirSync(state);
  mkdirSync(join(base, "elsewhere"));
  symlinkSync(join(base, "elsewhere"), join(state, KEPT_HOMES));
  expect(keptHome(state, "/work/a", "k")).toBeNull();
});

const host: HostFs = { kind: (p) => (["/usr", "/work/proj", "/home/u"].includes(p) ? "dir" : null), readlink: () => "" };
const spec = (over: Partial<SandboxSpec>): SandboxSpec => ({ root: "/work/proj", allowNet: false, gitWritable: false, writable: [], system: ["/usr"], home: "/home/u", keptHome: "/state/sandbox-homes/abc", ...over });

test("its caches shown read-write in the empty home, to a command that may write, and said as such; a line that only reads gets none", () => {
  const args = bubblewrapArgs(spec({}), ["true"], "bwrap", host).join(" ");
  expect(args).toContain("--tmpfs /home/u");
  expect(args).toContain("--bind /state/sandbox-homes/abc/.cache/pip /home/u/.cache/pip");
  // Not the whole of ~/.cache (corepack's yarn, pre-commit's environments, browsers: programs a later command runs).
  expect(args).not.toContain("/home/u/.cache ");
  expect(args).toContain("--bind /state/sandbox-homes/abc/.m2/repository /home/u/.m2/repository");
  expect(args).not.toContain("--bind /state/sandbox-homes/abc /home/u ");
  const mounts = sandboxMounts(spec({}), "linux", host);
  expect(shownAs(mounts, "/home/u/.cache/pip")).toBe("private");
  // What configures the tools is the empty home's, gone with the command.
  expect(mounts.filter((m) => m.kind === "kept").map((m) => m.path.slice("/home/u/".length))).toEqual(KEPT_CACHES);
  expect(describeView(spec({}))).toContain("a private empty home whose package caches (~/.cache/pip, ~/.npm/_cacache, …) are the workspace's own, kept between its commands");
  // A line that only reads: nothing of it is kept.
  expect(bubblewrapArgs(spec({ workspaceReadOnly: true }), ["true"], "bwrap", host).join(" ")).not.toContain("/state/sandbox-homes/abc");
  // Without one, the empty in-memory home alone, as before; macOS has no private home to replace.
  expect(bubblewrapArgs(spec({ keptHome: undefined }), ["true"], "bwrap", host).join(" ")).not.toContain("--bind /state");
  expect(sandboxMounts(spec({}), "darwin", host).some((m) => m.kind === "kept")).toBe(false);
});

test("a cache where something else is mounted in or around it (a toolchain's folder, a granted home) is not kept", () => {
  const withCargo: HostFs = { kind: (p) => (["/usr", "/work/proj", "/home/u", "/home/u/.cargo"].includes(p) ? "dir" : null), readlink: () => "" };
  const cargo = sandboxMounts(spec({ toolchains: ["/home/u/.cargo"] }), "linux", withCargo);
  expect(cargo.some((m) => m.kind === "kept" && m.path.startsWith("/home/u/.cargo/"))).toBe(false);
  expect(cargo.some((m) => m.kind === "kept" && m.path === "/home/u/.npm/_cacache")).toBe(true);
  // A home in /tmp (a CI container's HOME=/tmp/…): the sandbox's private /tmp around it is no reason to keep none.
  const tmpHome: HostFs = { kind: (p) => (["/usr", "/work/proj"].includes(p) ? "dir" : null), readlink: () => "" };
  expect(sandboxMounts(spec({ home: "/tmp/ci/home" }), "linux", tmpHome).filter((m) => m.kind === "kept").map((m) => m.path)).toContain("/tmp/ci/home/.npm/_cacache");
  // The person's home granted: its caches are the person's own.
  expect(sandboxMounts(spec({ readable: ["/home/u"] }), "linux", host).some((m) => m.kind === "kept")).toBe(false);
});
