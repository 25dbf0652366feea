// The read-only tools as the model sees them: every call goes through the
// registry (schema validation, ToolError → is_error) over a real temp
// workspace with the real resolver and policy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { isWithin } from "../../../src/perms/workspace.ts";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { contentHash } from "../../../src/agent/session-state.ts";
import { boundOutput } from "../../../src/tools/bound.ts";
import { globTool } from "../../../src/tools/glob.ts";
import { grepTool } from "../../../src/tools/grep.ts";
import { listFilesTool } from "../../../src/tools/list-files.ts";
import { readFileTool } from "../../../src/tools/read-file.ts";
import { requiredLiteral } from "../../../src/tools/regex-literal.ts";
import { ToolRegistry, type ToolCallResult } from "../../../src/tools/registry.ts";
import { makeContext, tempDir, type TestContext } from "../../support/context.ts";
import { eachEscape, SECRET } from "../../support/escape-table.ts";
import { specialFiles, type SpecialFiles } from "../../support/special-files.ts";

const registry = new ToolRegistry([readFileTool, listFilesTool, grepTool, globTool]);

function workspace(files: Record<string, string | Uint8Array>): string {
  const root = tempDir();
  for (const [path, data] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), data);
  }
  return root;
}

async function call(ctx: TestContext, tool: string, input: Record<string, unknown>): Promise<ToolCallResult> {
  return registry.run(tool, input, ctx);
}

async function ok(ctx: TestContext, tool: string, input: Record<string, unknown>): Promise<string> {
  const r = await call(ctx, tool, input);
  if (r.isError) throw new Error(`${tool} failed: ${r.content}`);
  return r.content;
}

async function fails(ctx: TestContext, tool: string, input: Record<string, unknown>): Promise<string> {
  const r = await call(ctx, tool, input);
  if (!r.isError) throw new Error(`${tool} should have failed but said: ${r.content}`);
  return r.content;
}

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n") + "\n";

describe("read_file", () => {
  test("numbered lines, offset and limit, and how to read on", async () => {
    const ctx = makeContext(workspace({ "a.txt": "alpha\nbeta\ngamma\ndelta\n" }));
    expect(await ok(ctx, "read_file", { path: "a.txt" })).toBe("1\talpha\n2\tbeta\n3\tgamma\n4\tdelta");
    expect(await ok(ctx, "read_file", { path: "a.txt", offset: 2, limit: 2 })).toBe(
      "2\tbeta\n3\tgamma\n[showing lines 2-3 of 4 (line limit reached); to read on, use offset=4]",
    );
    expect(await fails(ctx, "read_file", { path: "a.txt", offset: 9 })).toContain("past the end: the file has 4 lines");
    expect(await fails(ctx, "read_file", { path: "a.txt", offset: 0 })).toContain("offset must be 1 or more");
    expect(await fails(ctx, "read_file", { path: "a.txt", limit: "ten" })).toBe("Invalid input for read_file: limit must be an integer, got string.");
  });

  test("stops at 2,000 lines by default and at ~20 KB, saying where to continue", async () => {
    const ctx = makeContext(workspace({ "short.txt": lines(2500, () => "s"), "wide.txt": lines(1000, (i) => `${i}:${"x".repeat(100)}`) }));
    const short = (await ok(ctx, "read_file", { path: "short.txt" })).split("\n");
    expect(short).toHaveLength(2001);
    expect(short[1999]).toBe("2000\ts");
    expect(short[2000]).toBe("[showing lines 1-2000 of 2500 (line limit reached); to read on, use offset=2001]");
    const rest = await ok(ctx, "read_file", { path: "short.txt", offset: 2001 });
    expect(rest.split("\n")).toHaveLength(500);
    expect(rest.split("\n")[0]).toBe("2001\ts");

    const wide = await ok(ctx, "read_file", { path: "wide.txt" });
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(20_200);
    const note = wide.split("\n").at(-1)!;
    const next = Number(/offset=(\d+)/.exec(note)![1]);
    expect(note).toContain("output limit reached");
    expect(wide.split("\n").at(-2)).toStartWith(`${String(next - 1).padStart(4)}\t${next - 1}:`);
    expect(await ok(ctx, "read_file", { path: "wide.txt", offset: next, limit: 1 })).toStartWith(`${next}\t${next}:xxx`);
  });

  test("cuts very long lines with a marker and drops CR from CRLF lines", async () => {
    const ctx = makeContext(workspace({ "min.js": `${"y".repeat(5000)}\nshort\r\n` }));
    const out = await ok(ctx, "read_file", { path: "min.js" });
    expect(out).toBe(`1\t${"y".repeat(2000)}… [line cut: 5000 chars]\n2\tshort`);
  });

  test("binary files, directories, empty files", async () => {
    const ctx = makeContext(workspace({ "img.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), "d/x.txt": "x", "empty.txt": "" }));
    expect(await fails(ctx, "read_file", { path: "img.png" })).toBe("img.png is a binary file (7 bytes); read_file shows text only");
    expect(await fails(ctx, "read_file", { path: "d" })).toBe("d is a directory, not a file; use list_files to see what is in it");
    expect(await ok(ctx, "read_file", { path: "empty.txt" })).toBe("(empty.txt is empty)");
  });

  test("a named pipe is refused at once instead of hanging", async () => {
    const root = workspace({});
    expect(Bun.spawnSync(["mkfifo", join(root, "pipe")]).exitCode).toBe(0);
    const ctx = makeContext(root);
    expect(await fails(ctx, "read_file", { path: "pipe" })).toBe("pipe is a named pipe (FIFO), not a regular file; bunker reads regular files only (opening it could wait forever or never end)");
    expect(await fails(ctx, "grep", { pattern: "x", path: "pipe" })).toContain("bunker searches regular files only");
    expect(await ok(ctx, "grep", { pattern: "x" })).toBe("No matches for /x/ in . (0 files searched)");
  });

  test("a missing file suggests the same name elsewhere and similar names nearby", async () => {
    const ctx = makeContext(workspace({ "src/utils/format.ts": "", "src/main.ts": "", "src/mian.test.ts": "", "lib/config.json": "" }));
    expect(await fails(ctx, "read_file", { path: "format.ts" })).toBe("format.ts does not exist. Did you mean: src/utils/format.ts?");
    expect(await fails(ctx, "read_file", { path: "src/mian.ts" })).toBe("src/mian.ts does not exist. Did you mean: src/main.ts?");
    expect(await fails(ctx, "read_file", { path: "lib/config.js" })).toContain("Did you mean: lib/config.json?");
    expect(await fails(ctx, "read_file", { path: "nope/zzz.md" })).toBe("nope/zzz.md does not exist (nor does its directory nope)");
  });

  test("records what was read, for read-before-write", async () => {
    const root = workspace({ "a.txt": "one\ntwo\n" });
    const ctx = makeContext(root);
    await ok(ctx, "read_file", { path: "./a.txt", limit: 1 });
    expect(ctx.session.readHashes.get(join(root, "a.txt"))).toBe(contentHash(Buffer.from("one\ntwo\n")));
  });
});

describe("list_files", () => {
  test("an indented tree: directories end in /, links in @, .git and ignored entries left out", async () => {
    const root = workspace({
      ".gitignore": "node_modules/\n*.log\n",
      ".git/HEAD": "ref",
      "node_modules/x/index.js": "",
      "debug.log": "",
      "README.md": "",
      "src/main.ts": "",
      "src/deep/er/file.ts": "",
    });
    symlinkSync("README.md", join(root, "readme-link"));
    const ctx = makeContext(root);
    expect(await ok(ctx, "list_files", {})).toBe(
      [
        "./",
        "  .gitignore",
        "  README.md",
        "  readme-link@",
        "  src/",
        "    deep/",
        "    main.ts",
        "[2 gitignored entries not shown]",
      ].join("\n"),
    );
    expect(await ok(ctx, "list_files", { path: "src", depth: 5 })).toBe(
      ["src/", "  deep/", "    er/", "      file.ts", "  main.ts"].join("\n"),
    );
  });

  test("bounded, with a note; clear errors for files and missing directories", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 650; i++) files[`many/f${String(i).padStart(3, "0")}.txt`] = "";
    const ctx = makeContext(workspace({ ...files, "file.txt": "" }));
    const out = (await ok(ctx, "list_files", { path: "many" })).split("\n");
    expect(out).toHaveLength(502);
    expect(out.at(-1)).toBe("[stopped at 500 entries; list a subdirectory or use a smaller depth to see the rest]");
    expect(await fails(ctx, "list_files", { path: "file.txt" })).toBe("file.txt is a file, not a directory; use read_file to read it");
    expect(await fails(ctx, "list_files", { path: "manny" })).toBe("manny does not exist. Did you mean: many?");
    expect(await fails(ctx, "list_files", { path: "many", depth: 0 })).toBe("depth must be 1 or more, got 0");
  });
});

describe("grep", () => {
  const files = {
    ".gitignore": "dist/\n",
    "dist/bundle.js": "const needle = 1;\n",
    "src/a.ts": "import x from 'y';\nconst needle = 1;\n// Needle in caps\nexport {};\n",
    "src/b.tsx": "one\ntwo\nneedle here\nthree\nfour\nfive\nsix\nneedle again\n",
    "data.bin": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]),
  };

  test("file:line:text, gitignored and binary files skipped", async () => {
    const ctx = makeContext(workspace(files));
    expect(await ok(ctx, "grep", { pattern: "needle" })).toBe(
      ["src/a.ts:2:const needle = 1;", "src/b.tsx:3:needle here", "src/b.tsx:8:needle again"].join("\n"),
    );
  });

  test("ignore_case, glob on names and on paths, a single file", async () => {
    const ctx = makeContext(workspace(files));
    expect(await ok(ctx, "grep", { pattern: "needle", ignore_case: true, glob: "*.ts" })).toBe(
      "src/a.ts:2:const needle = 1;\nsrc/a.ts:3:// Needle in caps",
    );
    expect(await ok(ctx, "grep", { pattern: "needle", glob: "src/*.tsx" })).toBe("src/b.tsx:3:needle here\nsrc/b.tsx:8:needle again");
    expect(await ok(ctx, "grep", { pattern: "^export", path: "src/a.ts" })).toBe("src/a.ts:4:export {};");
    // Named explicitly, an ignored directory is searched.
    expect(await ok(ctx, "grep", { pattern: "needle", path: "dist" })).toBe("dist/bundle.js:1:const needle = 1;");
  });

  test("context lines use - and groups are separated by --", async () => {
    const ctx = makeContext(workspace(files));
    expect(await ok(ctx, "grep", { pattern: "needle", path: "src", glob: "*.tsx", context: 1 })).toBe(
      ["src/b.tsx-2-two", "src/b.tsx:3:needle here", "src/b.tsx-4-three", "--", "src/b.tsx-7-six", "src/b.tsx:8:needle again"].join("\n"),
    );
    expect(await ok(ctx, "grep", { pattern: "needle", path: "src", context: 3 })).toBe(
      [
        "src/a.ts-1-import x from 'y';",
        "src/a.ts:2:const needle = 1;",
        "src/a.ts-3-// Needle in caps",
        "src/a.ts-4-export {};",
        "--",
        "src/b.tsx-1-one",
        "src/b.tsx-2-two",
        "src/b.tsx:3:needle here",
        "src/b.tsx-4-three",
        "src/b.tsx-5-four",
        "src/b.tsx-6-five",
        "src/b.tsx-7-six",
        "src/b.tsx:8:needle again",
      ].join("\n"),
    );
  });

  test("matches stay within a line, as in rg", async () => {
    const ctx = makeContext(workspace({ "t.txt": "foo\nbar\nfoo bar\n", "u.txt": "end\n" }));
    expect(await ok(ctx, "grep", { pattern: "foo\\s+bar" })).toBe("t.txt:3:foo bar");
    expect(await ok(ctx, "grep", { pattern: "^$" })).toBe("No matches for /^$/ in . (2 files searched)");
    expect(await ok(ctx, "grep", { pattern: "d$", path: "u.txt" })).toBe("u.txt:1:end");
  });

  test("a bad regex, a bad context and no matches are clear", async () => {
    const ctx = makeContext(workspace(files));
    expect(await fails(ctx, "grep", { pattern: "foo(" })).toStartWith("invalid regular expression /foo(/:");
    expect(await fails(ctx, "grep", { pattern: "x", context: 99 })).toBe("context must be between 0 and 10, got 99");
    expect(await fails(ctx, "grep", { pattern: "x", path: "data.bin" })).toBe("data.bin is a binary file; grep searches text only");
    expect(await ok(ctx, "grep", { pattern: "haystack" })).toBe("No matches for /haystack/ in . (3 files searched; 1 binary or oversized file skipped)");
    expect(await fails(ctx, "grep", {})).toBe("Invalid input for grep: pattern is required.");
  });

  test("output is bounded with a note, and long lines show the match", async () => {
    const ctx = makeContext(workspace({ b: lines(3000, () => "h"), "big.txt": lines(3000, (i) => `hit ${i}`), "min.js": `${"a".repeat(5000)}TARGET${"b".repeat(5000)}\n` }));
    const many = (await ok(ctx, "grep", { pattern: "h", path: "b" })).split("\n");
    expect(many).toHaveLength(2001);
    expect(many[1999]).toBe("b:2000:h");
    expect(many[2000]).toBe("[output truncated at 2000 lines: more matches exist; narrow the pattern, path or glob to see the rest]");
    const wide = await ok(ctx, "grep", { pattern: "hit", path: "big.txt" });
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(20_200);
    expect(wide).toContain("big.txt:1:hit 1\nbig.txt:2:hit 2\n");
    expect(wide.split("\n").at(-1)).toContain("more matches exist");
    const min = await ok(ctx, "grep", { pattern: "TARGET" });
    expect(min).toContain("TARGET");
    expect(min).toContain("[line cut: 10006 chars]");
    expect(min.length).toBeLessThan(400);
  });

  test("the byte prefilter never skips a file the regex matches", async () => {
    const cases: [string, string][] = [
      ["colou?r", "the color red"],
      ["ab*c", "ac"],
      ["x{0,2}yz", "yz"],
      ["a+b", "aaab"],
      ["foo\\.bar", "foo.bar"],
      ["(?:ab|cd)ef", "cdef"],
      ["ab|cd", "cd"],
      ["\\d+px", "12px"],
      ["q[u]ick", "quick"],
      ["a\\/b", "a/b"],
      ["é+t", "ét"],
      ["x{2}", "xx"],
    ];
    for (const [pattern, text] of cases) {
      expect(new RegExp(pattern).test(text)).toBe(true);
      const literal = requiredLiteral(pattern, false);
      if (literal !== undefined) expect({ pattern, found: text.includes(literal) }).toEqual({ pattern, found: true });
    }
    expect(requiredLiteral("createServer", false)).toBe("createServer");
    expect(requiredLiteral("function\\s+\\w+Async", false)).toBe("function");
    expect(requiredLiteral("createServer", true)).toBeUndefined();
    // And through the tool: files that hold only the variant the optional char allows are found.
    const ctx = makeContext(workspace({ "us.txt": "color\n", "uk.txt": "colour\n" }));
    expect(await ok(ctx, "grep", { pattern: "colou?r" })).toBe("uk.txt:1:colour\nus.txt:1:color");
  });
});

describe("glob", () => {
  test("matching paths, newest first, ignored files left out", async () => {
    const root = workspace({ ".gitignore": "gen/\n", "src/old.ts": "", "src/new.ts": "", "src/mid.tsx": "", "gen/x.ts": "", "README.md": "" });
    const t = Date.now() / 1000;
    utimesSync(join(root, "src/old.ts"), t - 300, t - 300);
    utimesSync(join(root, "src/mid.tsx"), t - 200, t - 200);
    utimesSync(join(root, "src/new.ts"), t - 100, t - 100);
    const ctx = makeContext(root);
    expect(await ok(ctx, "glob", { pattern: "**/*.{ts,tsx}" })).toBe("src/new.ts\nsrc/mid.tsx\nsrc/old.ts");
    expect(await ok(ctx, "glob", { pattern: "*.ts", path: "src" })).toBe("src/new.ts\nsrc/old.ts");
    expect(await ok(ctx, "glob", { pattern: "*.py" })).toBe("No files match *.py in .");
  });

  test("bounded with a note", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 520; i++) files[`f${i}.txt`] = "";
    const ctx = makeContext(workspace(files));
    const out = (await ok(ctx, "glob", { pattern: "*.txt" })).split("\n");
    expect(out).toHaveLength(501);
    expect(out[500]).toBe("[showing the 500 newest of 520 matches; use a narrower pattern or path to see others]");
  });
});

describe("boundOutput", () => {
  test("passes short text through and cuts long text at a line with the hint", () => {
    expect(boundOutput("a\nb\n", { hint: "unused" })).toBe("a\nb\n");
    const text = lines(3000, (i) => `row ${i}`);
    const out = boundOutput(text, { hint: (n) => `use offset=${n + 1}` });
    expect(out.split("\n").at(-1)).toBe("[output truncated: showing 2000 of 3000 lines; use offset=2001]");
    const wide = boundOutput("z".repeat(50_000), { hint: "narrow it" });
    expect(wide.length).toBeLessThan(6_000);
    expect(wide).toEndWith("[output truncated: showing 1 of 1 lines; narrow it]");
  });
});

describe("nothing outside the workspace is read, listed or searched", () => {
  // base/ws is the workspace; base/outside holds the secret; base/ws2 shares the root's prefix.
  function setup() {
    const base = tempDir();
    const root = join(base, "ws");
    const outside = join(base, "outside");
    mkdirSync(join(root, "a"), { recursive: true });
    mkdirSync(outside);
    mkdirSync(join(base, "ws2"));
    writeFileSync(join(outside, "secret.txt"), "TOP-SECRET\n");
    writeFileSync(join(base, "ws2", "secret.txt"), "TOP-SECRET\n");
    writeFileSync(join(root, "ok.txt"), "fine\n");
    symlinkSync(join(outside, "secret.txt"), join(root, "link-file"));
    symlinkSync(outside, join(root, "link-dir"));
    symlinkSync(join(root, "chain-2"), join(root, "chain-1"));
    symlinkSync(join(outside, "secret.txt"), join(root, "chain-2"));
    symlinkSync(join(outside, "not-yet.txt"), join(root, "dangling"));
    return { base, root, outside };
  }

  const calls = (path: string): [string, Record<string, unknown>][] => [
    ["read_file", { path }],
    ["list_files", { path }],
    ["grep", { pattern: "SECRET|secret|root", path }],
    ["glob", { pattern: "**/*", path }],
  ];

  // The shared escape table (link/.., link to /, sibling, dangling, ...): every row, every reading tool.
  describe("the escape table", () => {
    const fixture = eachEscape(async (f, row) => {
      // Nobody to ask (--no-prompt, no terminal): refused, naming the flag.
      const ctx = makeContext(f.root, { interactive: false });
      for (const [tool, input] of calls(row.path(f))) {
        const r = await call(ctx, tool, input);
        expect({ tool, isError: r.isError, content: r.content }).toMatchObject({ tool, isError: true, content: expect.stringMatching(row.expect) });
        if (row.expect.source.includes("outside")) expect(r.content).toContain("--allow-read=");
        expect(r.content).not.toContain(SECRET);
        expect(r.content).not.toContain("root:x:0");
      }
      // A person to ask: a read outside is asked (N12-11), naming the physical path it resolves to; refused, nothing read.
      const asking = makeContext(f.root);
      for (const [tool, input] of calls(row.path(f))) {
        const r = await call(asking, tool, input);
        expect(r.isError).toBe(true);
        expect(r.content).not.toContain(SECRET);
        expect(r.content).not.toContain("root:x:0");
      }
      for (const req of asking.approver.asked) {
        expect(req.kind).toBe("read");
        expect(isAbsolute(req.target)).toBe(true);
        expect(isWithin(f.root, req.target)).toBe(false);
      }
      if (!row.expect.source.includes("outside")) expect(asking.approver.asked).toHaveLength(0);
    });
    test("the innocent links alone stay inside: self/inside.txt, sub/here/../inside.txt, sub/up/inside.txt", async () => {
      const ctx = makeContext(fixture().root);
      for (const path of ["self/inside.txt", "sub/here/../inside.txt", "sub/up/inside.txt", "self/self/sub/up/inside.txt"]) {
        expect(await ok(ctx, "read_file", { path })).toBe("1\tinside");
      }
    });
  });

  test("walking the workspace never goes through a link to the outside", async () => {
    const { root } = setup();
    const ctx = makeContext(root);
    const grep = await ok(ctx, "grep", { pattern: "SECRET|fine" });
    expect(grep).toBe("ok.txt:1:fine");
    const list = await ok(ctx, "list_files", { depth: 5 });
    expect(list).toContain("link-dir@");
    expect(list).not.toContain("secret.txt");
    expect(await ok(ctx, "glob", { pattern: "**/*" })).toBe("ok.txt");
  });

  test("a grant (--allow-read=DIR) makes the outside readable", async () => {
    const { root, outside } = setup();
    const grants = emptyGrants();
    grants.allow.read.paths.push(outside);
    const ctx = makeContext(root, { grants, interactive: false });
    expect(await ok(ctx, "read_file", { path: "../outside/secret.txt" })).toBe("1\tTOP-SECRET");
    expect(await ok(ctx, "read_file", { path: "link-file" })).toBe("1\tTOP-SECRET");
    expect(await ok(ctx, "read_file", { path: "chain-1" })).toBe("1\tTOP-SECRET");
    expect(await ok(ctx, "grep", { pattern: "SECRET", path: outside })).toBe(`${outside}/secret.txt:1:TOP-SECRET`);
    expect(await ok(ctx, "list_files", { path: "link-dir" })).toBe(`${outside}/\n  secret.txt`);
    expect(await ok(ctx, "glob", { pattern: "*.txt", path: outside })).toBe(`${outside}/secret.txt`);
    // Linked files whose target is granted now show up in glob; the sibling ws2 is still refused.
    expect(await ok(ctx, "glob", { pattern: "*" })).toContain("link-file");
    expect(await fails(ctx, "read_file", { path: "../ws2/secret.txt" })).toContain("--allow-read=");
  });

  test("a --deny-read path inside the workspace is skipped by walks and refused by name", async () => {
    const root = workspace({ "keys/id.pem": "PRIVATE KEY\n", "src/a.ts": "const KEY = 1;\n" });
    const grants = emptyGrants();
    grants.deny.read.paths.push(join(root, "keys"));
    const ctx = makeContext(root, { grants });
    expect(await ok(ctx, "grep", { pattern: "KEY" })).toBe("src/a.ts:1:const KEY = 1;");
    expect(await ok(ctx, "glob", { pattern: "**/*" })).toBe("src/a.ts");
    expect(await ok(ctx, "list_files", {})).not.toContain("keys");
    expect(await fails(ctx, "read_file", { path: "keys/id.pem" })).toContain("denied");
  });
});

describe("a FIFO, a socket and /dev/zero: every reading tool refuses them at once", () => {
  let sp: SpecialFiles;
  beforeAll(async () => {
    sp = await specialFiles(tempDir("bunker-kinds-"));
    symlinkSync("/dev/zero", join(sp.root, "zero"));
    writeFileSync(join(sp.root, "ok.txt"), "fine\n");
  });
  afterAll(() => sp.close());

  test("named directly: a sentence saying what it is, in under a second", async () => {
    const grants = emptyGrants();
    grants.allow.read.paths.push("/dev/zero"); // granted, so the file kind is what refuses it
    const ctx = makeContext(sp.root, { grants });
    for (const [path, what] of [["pipe", "a named pipe (FIFO)"], ["sock", "a socket"], ["zero", "a device"]] as const) {
      for (const [tool, input] of [["read_file", { path }], ["grep", { pattern: "x", path }], ["list_files", { path }], ["glob", { pattern: "*", path }]] as const) {
        const t = Date.now();
        const r = await call(ctx, tool, input);
        expect({ tool, path, isError: r.isError, says: r.content.includes(`is ${what}`) }).toEqual({ tool, path, isError: true, says: true });
        expect(Date.now() - t).toBeLessThan(1000);
      }
    }
  });

  test("met in a walk: skipped, the rest searched", async () => {
    const ctx = makeContext(sp.root);
    const t = Date.now();
    expect(await ok(ctx, "grep", { pattern: "fine|x" })).toBe("ok.txt:1:fine");
    expect(await ok(ctx, "glob", { pattern: "*" })).toBe("ok.txt");
    expect(Date.now() - t).toBeLessThan(1000);
  });
});
