import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Grants } from "../../../src/perms/policy.ts";
import type { ApprovalAnswer } from "../../../src/perms/types.ts";
import { editFileTool } from "../../../src/tools/edit-file.ts";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { makeContext, tempDir, workspaceWithRead, type TestContext } from "../../support/context.ts";
import { SECRET } from "../../support/escape-table.ts";
import { allowAllWrites, testEscapes } from "../../support/write-escape.ts";

const registry = new ToolRegistry([editFileTool]);
const edit = (ctx: TestContext, input: Record<string, unknown>) => registry.run("edit_file", input, ctx);

/** A workspace with one file, a.txt, the session has read. */
const setup = (content = "alpha\nbeta\ngamma\n", opts: { answers?: ApprovalAnswer[]; grants?: Grants; interactive?: boolean } = {}) => workspaceWithRead("a.txt", content, opts);

describe("edit_file: approval", () => {
  test("shows the real diff, and writes only on yes", async () => {
    const { file, ctx } = setup("alpha\nbeta\ngamma\n", { answers: [{ answer: "once" }] });
    const r = await edit(ctx, { path: "a.txt", old_string: "beta", new_string: "BETA" });
    expect(r).toEqual({ isError: false, content: "Edited a.txt: replaced 1 occurrence (first at line 2) (+1 -1).", shown: "Updated a.txt (+1 -1)" });
    expect(readFileSync(file, "utf8")).toBe("alpha\nBETA\ngamma\n");
    const asked = ctx.approver.asked[0]!;
    expect(asked.kind).toBe("write");
    expect(asked.target).toBe(file);
    expect(asked.files?.[0]?.display).toBe("a.txt");
    expect(asked.files?.[0]?.diff).toContain("-beta\n+BETA");
  });

  test("a refusal with feedback touches nothing and tells the model what the person said", async () => {
    const { file, ctx } = setup("alpha\nbeta\n", { answers: [{ answer: "deny", feedback: "rename it to delta instead" }] });
    const r = await edit(ctx, { path: "a.txt", old_string: "beta", new_string: "BETA" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain("rename it to delta instead");
    expect(readFileSync(file, "utf8")).toBe("alpha\nbeta\n");
  });

  test("after a refusal, a different edit to the same file is asked again; the same edit is not", async () => {
    const { file, ctx } = setup("alpha\nbeta\n", { answers: [{ answer: "deny", feedback: "use delta" }, { answer: "once" }] });
    expect((await edit(ctx, { path: "a.txt", old_string: "beta", new_string: "BETA" })).isError).toBe(true);
    const again = await edit(ctx, { path: "a.txt", old_string: "beta", new_string: "BETA" });
    expect(again.isError).toBe(true);
    expect(again.content).toContain("already refused");
    expect(ctx.approver.asked).toHaveLength(1);
    const corrected = await edit(ctx, { path: "a.txt", old_string: "beta", new_string: "delta" });
    expect(corrected.isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("alpha\ndelta\n");
  });

  test("after /clear (forgetRefusals) the same edit is asked again", async () => {
    const { file, ctx } = setup("alpha\nbeta\n", { answers: [{ answer: "deny" }, { answer: "once" }] });
    expect((await edit(ctx, { path: "a.txt", old_string: "beta", new_string: "BETA" })).isError).toBe(true);
    ctx.perms.forgetRefusals();
    expect((await edit(ctx, { path: "a.txt", old_string: "beta", new_string: "BETA" })).isError).toBe(false);
    expect(ctx.approver.asked).toHaveLength(2);
    expect(readFileSync(file, "utf8")).toBe("alpha\nBETA\n");
  });

  test("'this file for the session' stops asking for that file only", async () => {
    const { root, file, ctx } = setup("one\n", { answers: [{ answer: "target-session" }] });
    writeFileSync(join(root, "b.txt"), "two\n");
    ctx.session.recordRead(join(root, "b.txt"), "two\n");
    expect((await edit(ctx, { path: "a.txt", old_string: "one", new_string: "1" })).isError).toBe(false);
    expect((await edit(ctx, { path: "a.txt", old_string: "1", new_string: "uno" })).isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("uno\n");
    expect(ctx.approver.asked).toHaveLength(1);
    // b.txt is asked (and the scripted approver, out of answers, refuses)
    expect((await edit(ctx, { path: "b.txt", old_string: "two", new_string: "2" })).isError).toBe(true);
    expect(ctx.approver.asked).toHaveLength(2);
  });

  test("headless (no prompt): refused, file unchanged, the message names --allow-write", async () => {
    const { file, ctx } = setup("alpha\n", { interactive: false });
    const r = await edit(ctx, { path: "a.txt", old_string: "alpha", new_string: "omega" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain("--allow-write=a.txt");
    expect(ctx.notices.join("\n")).toContain("--allow-write");
    expect(readFileSync(file, "utf8")).toBe("alpha\n");
  });

  test("with allow.write for the workspace (-A) it writes without asking", async () => {
    const { file, ctx } = setup("alpha\n", { grants: allowAllWrites() });
    expect((await edit(ctx, { path: "a.txt", old_string: "alpha", new_string: "omega" })).isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("omega\n");
    expect(ctx.approver.asked).toHaveLength(0);
  });

  test("interrupted while the person decides: nothing is written", async () => {
    const controller = new AbortController();
    const { file, ctx } = setup("alpha\n");
    ctx.approver.ask = async () => {
      controller.abort();
      return { answer: "once" };
    };
    const r = await registry.run("edit_file", { path: "a.txt", old_string: "alpha", new_string: "omega" }, { ...ctx, signal: controller.signal });
    expect(r.isError).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("alpha\n");
  });
});

describe("edit_file: read before write", () => {
  test("an existing file the session never read is refused", async () => {
    const root = tempDir();
    writeFileSync(join(root, "a.txt"), "alpha\n");
    const ctx = makeContext(root, { grants: allowAllWrites() });
    const r = await edit(ctx, { path: "a.txt", old_string: "alpha", new_string: "omega" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain("You have not read a.txt");
    expect(r.content).toContain("read_file");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("alpha\n");
  });

  test("a file changed on disk since it was read is refused until read again", async () => {
    const { file, ctx } = setup("alpha\n", { grants: allowAllWrites() });
    writeFileSync(file, "alpha changed elsewhere\n");
    const r = await edit(ctx, { path: "a.txt", old_string: "alpha", new_string: "omega" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain("changed on disk since you last read it");
    expect(readFileSync(file, "utf8")).toBe("alpha changed elsewhere\n");
  });

  test("a change made while the person is looking at the diff is not overwritten", async () => {
    const { file, ctx } = setup("alpha\n");
    ctx.approver.ask = async () => {
      writeFileSync(file, "someone else's edit\n");
      return { answer: "once" };
    };
    const r = await edit(ctx, { path: "a.txt", old_string: "alpha", new_string: "omega" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain("changed on disk while waiting for approval");
    expect(readFileSync(file, "utf8")).toBe("someone else's edit\n");
  });

  test("a second edit needs no re-read", async () => {
    const { file, ctx } = setup("a b c\n", { grants: allowAllWrites() });
    expect((await edit(ctx, { path: "a.txt", old_string: "a", new_string: "A" })).isError).toBe(false);
    expect((await edit(ctx, { path: "a.txt", old_string: "b", new_string: "B" })).isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("A B c\n");
  });
});

describe("edit_file: content", () => {
  test("an empty old_string creates a missing file (and its directories), shown as additions", async () => {
    const root = tempDir();
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    const r = await edit(ctx, { path: "src/new/mod.ts", old_string: "", new_string: "export const x = 1;\nexport const y = 2;\n" });
    expect(r.isError).toBe(false);
    expect(r.content).toContain("Created src/new/mod.ts");
    expect(readFileSync(join(root, "src/new/mod.ts"), "utf8")).toBe("export const x = 1;\nexport const y = 2;\n");
    const preview = ctx.approver.asked[0]!.files![0]!;
    expect(preview.kind).toBe("create");
    expect(preview.added).toBe(2);
    expect(preview.diff).toContain("+export const x = 1;");
  });

  test("a non-empty old_string on a missing file says how to create it", async () => {
    const root = tempDir();
    const ctx = makeContext(root, { grants: allowAllWrites() });
    const r = await edit(ctx, { path: "nope.ts", old_string: "x", new_string: "y" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain("nope.ts does not exist");
    expect(r.content).toContain("empty old_string");
    expect(existsSync(join(root, "nope.ts"))).toBe(false);
  });

  test("old_string equal to new_string is an error", async () => {
    const { ctx } = setup("alpha\n", { grants: allowAllWrites() });
    const r = await edit(ctx, { path: "a.txt", old_string: "alpha", new_string: "alpha" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain("the same");
  });

  test("no match quotes the closest lines; several matches give their lines", async () => {
    const { file, ctx } = setup("let total = 0;\nfor (const x of xs) total += x;\nlet total = 0;\n", { grants: allowAllWrites() });
    const none = await edit(ctx, { path: "a.txt", old_string: "for (const y of ys) total += y;", new_string: "z" });
    expect(none.isError).toBe(true);
    expect(none.content).toContain("! 2 | for (const x of xs) total += x;");
    const many = await edit(ctx, { path: "a.txt", old_string: "let total = 0;", new_string: "let total = 1;" });
    expect(many.content).toContain("2 times");
    expect(many.content).toContain("lines 1, 3");
    expect(readFileSync(file, "utf8")).toBe("let total = 0;\nfor (const x of xs) total += x;\nlet total = 0;\n");
  });

  test("keeps CRLF, the BOM, the final newline and the file mode", async () => {
    const { file, ctx } = setup("\uFEFFone\r\ntwo\r\nthree\r\n", { grants: allowAllWrites() });
    chmodSync(file, 0o754);
    const r = await edit(ctx, { path: "a.txt", old_string: "two\nthree\n", new_string: "2\n3" });
    expect(r.isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("\uFEFFone\r\n2\r\n3\r\n");
    expect(statSync(file).mode & 0o777).toBe(0o754);
  });

  test("editing through a symlink inside the workspace changes the target and keeps the link", async () => {
    const { root, file, ctx } = setup("alpha\n", { grants: allowAllWrites() });
    symlinkSync("a.txt", join(root, "link.txt"));
    const r = await edit(ctx, { path: "link.txt", old_string: "alpha", new_string: "omega" });
    expect(r.isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("omega\n");
    expect(lstatSync(join(root, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(root, "link.txt"))).toBe("a.txt");
  });

  test("binary files and directories are refused", async () => {
    const root = tempDir();
    writeFileSync(join(root, "bin.dat"), new Uint8Array([1, 0, 2, 3]));
    mkdirSync(join(root, "dir"));
    const ctx = makeContext(root, { grants: allowAllWrites() });
    ctx.session.recordRead(join(root, "bin.dat"), readFileSync(join(root, "bin.dat")));
    const bin = await edit(ctx, { path: "bin.dat", old_string: "x", new_string: "y" });
    expect(bin.content).toContain("binary");
    const dir = await edit(ctx, { path: "dir", old_string: "x", new_string: "y" });
    expect(dir.content).toContain("is a directory");
  });
});

describe("edit_file: protected directories", () => {
  test(".git/ and .bunker/ ask even with allow.write for the workspace (-A), at any depth", async () => {
    const root = tempDir();
    const targets = [".git/config", ".bunker/settings.json", "vendor/lib/.GIT/hooks/pre-commit"];
    for (const t of targets) {
      mkdirSync(join(root, t, ".."), { recursive: true });
      writeFileSync(join(root, t), "x = 1\n");
    }
    const ctx = makeContext(root, { grants: allowAllWrites(), answers: [{ answer: "deny" }, { answer: "once" }, { answer: "deny" }] });
    for (const t of targets) ctx.session.recordRead(join(root, t), "x = 1\n");
    const results = [];
    for (const t of targets) results.push(await edit(ctx, { path: t, old_string: "x = 1", new_string: "x = 2" }));
    expect(ctx.approver.asked.map((r) => r.files?.[0]?.display)).toEqual(targets);
    expect(results.map((r) => r.isError)).toEqual([true, false, true]);
    expect(readFileSync(join(root, ".git/config"), "utf8")).toBe("x = 1\n");
    expect(readFileSync(join(root, ".bunker/settings.json"), "utf8")).toBe("x = 2\n");
  });

  test("headless, a protected write says no flag grants it", async () => {
    const root = tempDir();
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, ".git/config"), "x\n");
    const ctx = makeContext(root, { grants: allowAllWrites(), interactive: false });
    ctx.session.recordRead(join(root, ".git/config"), "x\n");
    const r = await edit(ctx, { path: ".git/config", old_string: "x", new_string: "y" });
    expect(r.isError).toBe(true);
    expect(r.content).toContain("always ask");
    expect(r.content).not.toContain("run bunker with --allow-write");
  });
});

describe("edit_file: escape attempts", () => {
  // Only the workspace boundary may stop these (see escapeContext and EscapeAttempt.realFile).
  testEscapes(async (f, attempt, ctx) => {
    const r = await edit(ctx, { path: attempt.path(f), old_string: SECRET, new_string: "pwned" });
    const create = await edit(ctx, { path: attempt.path(f), old_string: "", new_string: "pwned" });
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(attempt.expect);
    expect(create.isError).toBe(true);
  });
});

test("editing a name that does not exist names the near one first: a typo is likelier than a new file with old text", async () => {
  const { ctx } = setup("alpha\n");
  expect(await edit(ctx, { path: "a.tx", old_string: "alpha", new_string: "ALPHA" })).toEqual({
    isError: true,
    content: "a.tx does not exist. Did you mean: a.txt? To create it, call edit_file with an empty old_string, or use write_file.",
  });
  expect(await edit(ctx, { path: "zzz/new.md", old_string: "x", new_string: "y" })).toEqual({
    isError: true,
    content: "zzz/new.md does not exist. To create it, call edit_file with an empty old_string, or use write_file.",
  });
});
