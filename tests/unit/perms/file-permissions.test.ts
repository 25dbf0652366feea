// The file's own permissions are respected: a read-only file is refused before
// the person is asked (by every writing tool), a directory bunker cannot write
// in is named plainly, and a replaced file keeps its owner and group.
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { applyPatchTool } from "../../../src/tools/apply-patch.ts";
import { editFileTool } from "../../../src/tools/edit-file.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { writeFileTool } from "../../../src/tools/write-file.ts";
import { makeContext, tempDir } from "../../support/context.ts";

const registry = new ToolRegistry([editFileTool, writeFileTool, applyPatchTool]);
const isRoot = process.getuid?.() === 0;

function readOnlyFile(): { root: string; file: string; ctx: ReturnType<typeof makeContext> } {
  const root = tempDir("bunker-perm-");
  const file = join(root, "locked.txt");
  writeFileSync(file, "one\n");
  chmodSync(file, 0o444);
  const ctx = makeContext(root, { answers: [{ answer: "once" }] });
  ctx.session.recordRead(file, readFileSync(file));
  return { root, file, ctx };
}

describe("a read-only file (mode 0444)", () => {
  const cases: [string, string, Record<string, unknown>][] = [
    ["edit_file", "edit_file", { path: "locked.txt", old_string: "one", new_string: "two" }],
    ["write_file", "write_file", { path: "locked.txt", content: "two\n" }],
    ["apply_patch", "apply_patch", { patch: "--- a/locked.txt\n+++ b/locked.txt\n@@ -1 +1 @@\n-one\n+two\n" }],
  ];
  for (const [label, tool, input] of cases) {
    test(`${label}: refused before asking, saying how to make it writable; the file and its mode are unchanged`, async () => {
      const { file, ctx } = readOnlyFile();
      const r = await registry.run(tool, input, ctx);
      expect(r.isError).toBe(true);
      expect(r.content).toContain("locked.txt is read-only (mode 0444); bunker does not change read-only files");
      expect(r.content).toContain("chmod u+w locked.txt");
      expect(ctx.approver.asked).toHaveLength(0);
      expect(readFileSync(file, "utf8")).toBe("one\n");
      expect(statSync(file).mode & 0o777).toBe(0o444);
    });
  }
});

test("write_file over a binary file says it is binary, not that it must be read first (read_file cannot)", async () => {
  const root = tempDir("bunker-perm-");
  writeFileSync(join(root, "logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
  const ctx = makeContext(root, { answers: [{ answer: "once" }] });
  const r = await registry.run("write_file", { path: "logo.png", content: "text\n" }, ctx);
  expect(r).toEqual({ isError: true, content: "logo.png looks like a binary file; only text files can be changed this way." });
});

test.skipIf(!isRoot)("root editing someone else's file keeps its owner and group", async () => {
  const root = tempDir("bunker-perm-");
  const file = join(root, "theirs.txt");
  writeFileSync(file, "one\n");
  chownSync(file, 4321, 8765);
  const ctx = makeContext(root, { answers: [{ answer: "once" }, { answer: "once" }] });
  ctx.session.recordRead(file, readFileSync(file));
  expect((await registry.run("edit_file", { path: "theirs.txt", old_string: "one", new_string: "two" }, ctx)).isError).toBe(false);
  expect(readFileSync(file, "utf8")).toBe("two\n");
  expect([statSync(file).uid, statSync(file).gid]).toEqual([4321, 8765]);
  const patch = "--- a/theirs.txt\n+++ b/theirs.txt\n@@ -1 +1 @@\n-two\n+three\n";
  expect((await registry.run("apply_patch", { patch }, ctx)).isError).toBe(false);
  expect(readFileSync(file, "utf8")).toBe("three\n");
  expect([statSync(file).uid, statSync(file).gid]).toEqual([4321, 8765]);
});

describe("a directory bunker cannot write in", () => {
  // Root can write anywhere, so the check runs as an unprivileged user (nobody) when the tests run as root.
  const script = (dir: string) => `
    const { writeProblem } = await import(${JSON.stringify(join(import.meta.dir, "../../../src/fs/writable.ts"))});
    console.log(JSON.stringify([writeProblem(${JSON.stringify(join(dir, "new.txt"))}, "sealed/new.txt"), writeProblem(${JSON.stringify(join(dir, "open.txt"))}, "sealed/open.txt")]));`;
  const setpriv = Bun.which("setpriv");
  test.skipIf(isRoot && !setpriv)("a new or existing file there is refused, naming the directory and why", async () => {
    const base = tempDir("bunker-perm-");
    chmodSync(base, 0o755);
    const dir = join(base, "sealed");
    mkdirSync(dir);
    writeFileSync(join(dir, "open.txt"), "x\n");
    chmodSync(join(dir, "open.txt"), 0o666);
    chmodSync(dir, 0o555);
    const bun = process.execPath;
    const argv = isRoot ? [setpriv!, "--reuid=65534", "--regid=65534", "--clear-groups", "--", bun, "-e", script(dir)] : [bun, "-e", script(dir)];
    const r = Bun.spawnSync(argv, { cwd: "/", env: { PATH: process.env.PATH ?? "", HOME: "/tmp" } });
    expect(r.stderr.toString()).toBe("");
    const [created, existing] = JSON.parse(r.stdout.toString()) as string[];
    // No write bits at all: read-only, said the same way as for a 0444 file (tests/unit/fs/errno-words.test.ts: for root too).
    expect(created).toBe(`The directory ${dir} is read-only (mode 0555); bunker does not write into read-only directories. If it should change, make it writable first (chmod u+w ${dir}).`);
    expect(existing).toBe(created);
  });

  test.skipIf(!isRoot || !setpriv)("a directory with write bits that are not ours: not writable, and why", async () => {
    const base = tempDir("bunker-perm-");
    chmodSync(base, 0o755);
    const dir = join(base, "sealed");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const r = Bun.spawnSync([setpriv!, "--reuid=65534", "--regid=65534", "--clear-groups", "--", process.execPath, "-e", script(dir)], { cwd: "/", env: { PATH: process.env.PATH ?? "", HOME: "/tmp" } });
    const [created] = JSON.parse(r.stdout.toString()) as string[];
    expect(created).toBe(`The directory ${dir} is not writable, and bunker writes every file through a temporary file beside it (so a crash never leaves half a file). Make the directory writable first.`);
  });
});
