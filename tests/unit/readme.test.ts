// The README is the first page a person reads (new user 12's N12-13): its tables of flags and slash commands
// are checked against the code both ways (every flag and command is there; nothing there that does not
// exist), its test command against the one CI runs, and its links, and those of docs/, against the files and
// headings they name, since the detail lives in docs/.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FLAGS } from "../../src/config.ts";
import { COMMANDS } from "../../src/slash-commands.ts";

const ROOT = resolve(import.meta.dir, "../..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const DOCS = [...new Bun.Glob("docs/*.md").scanSync(ROOT)].sort();

/** The first cell of each row of the tables in the section headed `## title` (up to the next `## `). */
function firstCells(markdown: string, title: string): string[] {
  const start = markdown.indexOf(`\n## ${title}\n`);
  expect(start).toBeGreaterThan(-1);
  const end = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  return section.split("\n").filter((l) => l.startsWith("| ") && !/^\|\s*-/.test(l)).map((l) => l.split(" | ")[0]!.slice(2));
}

test("every flag the parser knows is in the README's flags table, and the table names no other", () => {
  const cells = firstCells(README, "Flags").join(" ");
  const documented = new Set([...cells.matchAll(/(?<![\w-])(--[a-z][a-z-]*|-[A-Za-z])(?![\w-])/g)].map((m) => m[1]!));
  const known = new Set<string>();
  for (const [name, spec] of Object.entries(FLAGS)) {
    known.add(`--${name}`);
    if (spec.short) known.add(`-${spec.short}`);
  }
  expect([...known].filter((f) => !documented.has(f))).toEqual([]);
  expect([...documented].filter((f) => !known.has(f))).toEqual([]);
});

test("every slash command (and each other name for it) is in the README's table, and the table names no other", () => {
  const cells = firstCells(README, "Slash commands").join(" ");
  const documented = new Set([...cells.matchAll(/`(\/[a-z_]+)/g)].map((m) => m[1]!));
  const known = new Set(COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
  expect([...known].filter((c) => !documented.has(c))).toEqual([]);
  // An MCP server's prompts are named by pattern (`/mcp__SERVER__PROMPT`), not one by one.
  expect([...documented].filter((c) => !known.has(c) && !c.startsWith("/mcp__"))).toEqual([]);
  for (const c of COMMANDS) if (c.usage) expect(cells).toContain(`${c.name} ${c.usage.replaceAll("|", "\\|")}`);
});

test("the README's two commands: the test command is the one CI runs, with the Bun version CI installs", () => {
  const ci = readFileSync(join(ROOT, ".ci/run"), "utf8");
  const blocks = [...README.matchAll(/```sh\n([^]*?)```/g)].map((m) => m[1]!.trim());
  const run = "npm install -g bun@1.4.5 && bun install --frozen-lockfile && bun run build && ./dist/bunker";
  const tests = "npm install -g bun@1.4.5\nbun install --frozen-lockfile && bun test --timeout 30000 --parallel=4";
  // The first two code blocks of the README, byte for byte.
  expect(blocks.slice(0, 2)).toEqual([run, tests]);
  expect(ci).toContain("BUN_VERSION=1.4.5\n");
  const ciTest = /^bun test (.*) 2>&1 \| tee "\$out"$/m.exec(ci);
  expect(ciTest?.[1]).toBe("--timeout 30000 --parallel=4");
  expect(ci).toContain(`log "tests (README: ${tests.split("\n")[1]})"`);
});

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");
}

test("every relative link in the README and docs/ leads to a file there, and an #anchor to one of its headings", () => {
  const broken: string[] = [];
  for (const file of ["README.md", ...DOCS]) {
    const text = readFileSync(join(ROOT, file), "utf8").replace(/```[^]*?```/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split("#");
      const to = path ? join(dirname(join(ROOT, file)), path) : join(ROOT, file);
      if (!existsSync(to)) {
        broken.push(`${file}: ${target}`);
        continue;
      }
      if (anchor === undefined) continue;
      const headings = readFileSync(to, "utf8").replace(/```[^]*?```/g, "").split("\n").filter((l) => /^#+ /.test(l));
      if (!headings.some((h) => slug(h.replace(/^#+ /, "")) === anchor)) broken.push(`${file}: ${target}`);
    }
  }
  expect(broken).toEqual([]);
});

test("the README stays a guide read in minutes, its detail in docs/: no line over 2,000 characters there, and the README under 4,000 words", () => {
  const long: string[] = [];
  for (const file of ["README.md", ...DOCS]) {
    readFileSync(join(ROOT, file), "utf8").split("\n").forEach((line, i) => {
      if (line.length > 2000) long.push(`${file}:${i + 1} (${line.length} characters)`);
    });
  }
  expect(long).toEqual([]);
  expect(DOCS.length).toBeGreaterThan(5);
  expect(README.split(/\s+/).length).toBeLessThan(4000);
});
