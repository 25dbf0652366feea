import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commitFiles, TransactionError, type FileOp } from "../../../src/fs/transaction.ts";
import { tempDir } from "../../support/context.ts";
import { readTree } from "../../support/tree.ts";
import { thrown } from "../../support/thrown.ts";

function workspace(files: Record<string, string>): string {
  const root = tempDir("bunker-tx-");
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(root, p, ".."), { recursive: true });
    writeFileSync(join(root, p), c);
  }
  return root;
}

const failure = (fn: () => void) => thrown(fn, TransactionError);

describe("commitFiles", () => {
  test("writes, creates (with directories) and deletes, keeping modes and leaving no temp files", () => {
    const root = workspace({ "run.sh": "echo 1\n", "gone.txt": "bye\n", "keep.txt": "same\n" });
    chmodSync(join(root, "run.sh"), 0o750);
    commitFiles([
      { kind: "write", path: join(root, "run.sh"), data: "echo 2\n" },
      { kind: "write", path: join(root, "new/dir/n.txt"), data: "new\n" },
      { kind: "write", path: join(root, "tool"), data: "#!/bin/sh\n", mode: 0o755 },
      { kind: "delete", path: join(root, "gone.txt") },
    ]);
    expect(readTree(root)).toEqual({
      "keep.txt": "same\n",
      "new/": "<dir>",
      "new/dir/": "<dir>",
      "new/dir/n.txt": "new\n",
      "run.sh": "echo 2\n",
      tool: "#!/bin/sh\n",
    });
    expect(statSync(join(root, "run.sh")).mode & 0o777).toBe(0o750);
    expect(statSync(join(root, "tool")).mode & 0o777).toBe(0o755);
  });

  test("a failure preparing the last of three files changes nothing, and removes directories it made", () => {
    const root = workspace({ "a.txt": "a\n", "b.txt": "b\n", "notes.txt": "notes\n" });
    const before = readTree(root);
    const err = failure(() =>
      commitFiles([
        { kind: "write", path: join(root, "a.txt"), data: "A\n" },
        { kind: "write", path: join(root, "made/for/this/b.txt"), data: "B\n" },
        { kind: "write", path: join(root, "notes.txt/child.txt"), data: "child\n" },
      ]),
    );
    expect(err.message).toBe(`${join(root, "notes.txt/child.txt")}: ${join(root, "notes.txt")} is a file, not a directory. Nothing was changed.`);
    expect(err.restored).toBe(true);
    expect(readTree(root)).toEqual(before);
  });

  test("a rename failing midway restores every file already replaced, created or deleted", () => {
    const root = workspace({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    const inodeA = statSync(join(root, "a.txt")).ino;
    const ops: FileOp[] = [
      { kind: "write", path: join(root, "a.txt"), data: "A\n" },
      { kind: "write", path: join(root, "created.txt"), data: "new\n" },
      { kind: "delete", path: join(root, "c.txt") },
      { kind: "write", path: join(root, "d.txt"), data: "D\n" },
      { kind: "write", path: join(root, "b.txt"), data: "B\n" },
    ];
    const err = failure(() =>
      commitFiles(ops, {
        // Just before d.txt is renamed into place, something puts a non-empty directory there:
        // rename(2) then fails for real, even for root.
        beforeCommitStep: (i) => {
          if (i !== 3) return;
          expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("A\n");
          mkdirSync(join(root, "d.txt"));
          writeFileSync(join(root, "d.txt", "inner"), "x");
        },
      }),
    );
    expect(err.restored).toBe(true);
    expect(err.path).toBe(join(root, "d.txt"));
    expect(err.message).toContain("The 3 files already changed were restored; nothing was changed.");
    expect(readTree(root)).toEqual({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt/": "<dir>", "d.txt/inner": "x" });
    expect(statSync(join(root, "a.txt")).ino).toBe(inodeA);
  });

  test("a target whose parent directory becomes a file midway is rolled back too", () => {
    const root = workspace({ "a.txt": "a\n", "sub/b.txt": "b\n" });
    const err = failure(() =>
      commitFiles(
        [
          { kind: "write", path: join(root, "a.txt"), data: "A\n" },
          { kind: "write", path: join(root, "sub/b.txt"), data: "B\n" },
        ],
        {
          beforeCommitStep: (i) => {
            if (i !== 1) return;
            rmSync(join(root, "sub"), { recursive: true });
            writeFileSync(join(root, "sub"), "now a file");
          },
        },
      ),
    );
    expect(err.restored).toBe(true);
    expect(readTree(root)).toEqual({ "a.txt": "a\n", sub: "now a file" });
  });

  test("the same path twice is refused before anything happens", () => {
    const root = workspace({ "a.txt": "a\n" });
    const p = join(root, "a.txt");
    expect(failure(() => commitFiles([{ kind: "write", path: p, data: "1" }, { kind: "delete", path: p }])).message).toContain("appears twice");
    expect(readTree(root)).toEqual({ "a.txt": "a\n" });
  });

  test("directories emptied by deletions are pruned, but never the root itself", () => {
    const root = workspace({ "x/y/only.txt": "o\n", "last.txt": "l\n" });
    commitFiles(
      [
        { kind: "delete", path: join(root, "x/y/only.txt") },
        { kind: "delete", path: join(root, "last.txt") },
      ],
      { pruneEmptyDirsBelow: root },
    );
    expect(readTree(root)).toEqual({});
    expect(statSync(root).isDirectory()).toBe(true);
  });
});
