// The sandbox home kept for a workspace (src/sandbox/kept-home.ts): one owner-only
// folder per workspace in bunker's state folder, shown at the home's path
// (read-write, or read-only to a line that only reads); none where its files
// would be the workspace's, or where the folder is not bunker's own.
import { expect, test } from "bun:test";
import { mkdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { bubblewrapArgs } from "../../../src/sandbox/bubblewrap.ts";
import { describeView } from "../../../src/sandbox/explain.ts";
import { keptHome, KEPT_HOMES, linkInKeptHome } from "../../../src/sandbox/kept-home.ts";
import { sandboxMounts, shownAs, type HostFs, type SandboxSpec } from "../../../src/sandbox/spec.ts";
import { tempDir } from "../../support/context.ts";

test("one folder per workspace, owner-only, in the state folder; the same workspace gets the same one", () => {
  const state = join(tempDir("bunker-kept-"), "state");
  const a = keptHome(state, "/work/a")!;
  expect(a).toStartWith(join(state, KEPT_HOMES) + "/");
  expect(statSync(a).mode & 0o777).toBe(0o700);
  expect(keptHome(state, "/work/a")).toBe(a);
  expect(keptHome(state, "/work/b")).not.toBe(a);
});

test("none when the state folder is in the workspace or holds it, or its folder is a link", () => {
  const base = tempDir("bunker-kept-");
  expect(keptHome(join(base, "ws", ".state"), join(base, "ws"))).toBeNull();
  expect(keptHome(base, join(base, "ws"))).toBeNull();
  // A link where the homes go (made by someone else): not bunker's to hand to a command.
  const state = join(base, "state");
  mkdirSync(state);
  mkdirSync(join(base, "elsewhere"));
  symlinkSync(join(base, "elsewhere"), join(state, KEPT_HOMES));
  expect(keptHome(state, "/work/a")).toBeNull();
});

const host: HostFs = { kind: (p) => (["/usr", "/work/proj", "/home/u"].includes(p) ? "dir" : null), readlink: () => "" };
const spec = (over: Partial<SandboxSpec>): SandboxSpec => ({ root: "/work/proj", allowNet: false, gitWritable: false, writable: [], system: ["/usr"], home: "/home/u", keptHome: "/state/sandbox-homes/abc", ...over });

test("shown at the home's path, read-write, to a command that may write, and said as such; a line that only reads gets the empty home", () => {
  const args = bubblewrapArgs(spec({}), ["true"], "bwrap", host).join(" ");
  expect(args).toContain("--bind /state/sandbox-homes/abc /home/u");
  expect(args).not.toContain("--tmpfs /home/u");
  expect(shownAs(sandboxMounts(spec({}), "linux", host), "/home/u/.cache/pip")).toBe("private");
  expect(describeView(spec({}))).toContain("a private home of the workspace's own, kept between its commands (its caches stay)");
  // A line that only reads: nothing of it is kept, and its mount points (toolchains in the home) need a writable home.
  const readOnly = bubblewrapArgs(spec({ workspaceReadOnly: true }), ["true"], "bwrap", host).join(" ");
  expect(readOnly).not.toContain("/state/sandbox-homes/abc");
  expect(readOnly).toContain("--tmpfs /home/u");
  // Without one, the empty in-memory home, as before; macOS has no private home to replace.
  expect(bubblewrapArgs(spec({ keptHome: undefined }), ["true"], "bwrap", host).join(" ")).toContain("--tmpfs /home/u");
  expect(sandboxMounts(spec({}), "darwin", host).some((m) => m.kind === "kept")).toBe(false);
});

test("a link an earlier command left where the next sandbox mounts something (a toolchain, git's config) is found: that home is not used", () => {
  const kept = keptHome(join(tempDir("bunker-kept-"), "state"), "/work/a")!;
  const mounted = ["/home/u/.cargo", "/home/u/.config/git/config", "/work/a", "/usr"];
  expect(linkInKeptHome(kept, "/home/u", mounted)).toBeNull();
  // Plain folders on the way (bubblewrap's own mount points from before) are fine.
  mkdirSync(join(kept, ".config"), { recursive: true });
  expect(linkInKeptHome(kept, "/home/u", mounted)).toBeNull();
  symlinkSync("/work/a", join(kept, ".config", "git"));
  expect(linkInKeptHome(kept, "/home/u", mounted)).toBe(join(kept, ".config", "git"));
});
