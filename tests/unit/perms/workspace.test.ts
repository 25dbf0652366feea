// The one resolver, physically: each link is followed before the next `..`
// (as the kernel does), so an innocent `self -> .` cannot turn `self/..` into
// the workspace. Checked against what the kernel itself opens, and through
// the command judge: no escape-table row runs unasked or under a prefix.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { emptyGrants, type Grants } from "../../../src/perms/policy.ts";
import { evaluateRun } from "../../../src/perms/run/evaluate.ts";
import { absolutize, realpathLoose, resolveFrom, resolvePath, resolveRoot } from "../../../src/perms/workspace.ts";
import { ESCAPE_ATTEMPTS, makeEscapeFixture, type EscapeFixture } from "../../support/escape-table.ts";

let f: EscapeFixture;
beforeAll(() => {
  f = makeEscapeFixture();
});
afterAll(() => f.cleanup());

// The command judge's one evaluation, read three ways.
const decideRun = (grants: Grants, line: string, root: string) => evaluateRun(line, { root, grants });
const isReadOnlyLine = (line: string, root: string, grants: Grants) => evaluateRun(line, { root, grants }).readOnly;
const commandCoveredByPrefixes = (line: string, prefixes: string[], root: string, grants: Grants) =>
  evaluateRun(line, { root, grants, sessionPrefixes: prefixes }).verdict === "allow";

/** Where the kernel really lands for an existing path (realpath(3) walks it physically). */
const kernel = (abs: string) => realpathSync.native(abs);

describe("physical resolution", () => {
  test("absolutize keeps `..` where it is (no text normalizing)", () => {
    expect(absolutize("/ws", "self/../x")).toBe("/ws/self/../x");
    expect(absolutize("/ws", "/a/../b")).toBe("/a/../b");
  });

  test("link/.., link/link/../.., a link to /, a sibling, and `..` after a link in sub/ land where the kernel lands", () => {
    for (const rel of [
      "self/../outside/secret.txt", `self/self/../../${basename(f.base)}/outside/secret.txt`, "slash/../etc/passwd", "slash/etc/passwd",
      "sib/file.txt", "self/../ws2/file.txt", "sub/here/../../outside/secret.txt", "sub/up/../outside/secret.txt",
      "sub/up/inside.txt", "sub/here/../inside.txt", "self/self/self/self/../../../../etc/passwd",
    ]) {
      const abs = `${f.root}/${rel}`;
      expect({ rel, real: resolvePath(f.root, rel).real }).toEqual({ rel, real: kernel(abs) });
      expect(resolveFrom(f.root, rel)).toEqual({ real: kernel(abs), exists: true });
    }
  });

  test("every outside row of the escape table resolves outside", () => {
    for (const row of ESCAPE_ATTEMPTS) {
      if (!row.expect.source.includes("outside")) continue;
      expect({ row: row.name, inside: resolvePath(f.root, row.path(f)).inside }).toEqual({ row: row.name, inside: false });
    }
  });

  test("a dangling link is read, and `..` after it goes up from where it points", () => {
    expect(resolvePath(f.root, "dangling").real).toBe(join(f.outside, "created-by-escape"));
    expect(resolvePath(f.root, "dangling/../outside/secret.txt").inside).toBe(false);
  });

  test("a link whose own target holds link/.. is followed physically too", () => {
    const dir = join(f.root, "sub", "deep");
    mkdirSync(dir, { recursive: true });
    symlinkSync("../here/../../outside", join(dir, "tricky"));
    expect(realpathLoose(join(dir, "tricky")).real).toBe(kernel(join(dir, "tricky")));
    expect(resolvePath(f.root, "sub/deep/tricky").inside).toBe(false);
  });

  test("resolveRoot follows link/.. as the kernel does (Bun's realpathSync would not)", () => {
    expect(resolveRoot(`${f.root}/slash/..`)).toBe("/");
    expect(resolveRoot(`${f.root}/self/..`)).toBe(f.base);
  });
});

describe("the command judge uses the same resolver", () => {
  const rows = () => ESCAPE_ATTEMPTS.filter((r) => r.expect.source.includes("outside"));

  test("`cat ROW` never runs unasked, for every outside row", () => {
    for (const row of rows()) {
      const line = `cat ${row.path(f)}`;
      expect({ line, readOnly: isReadOnlyLine(line, f.root, emptyGrants()) }).toEqual({ line, readOnly: false });
      expect({ line, verdict: decideRun(emptyGrants(), line, f.root).verdict }).toEqual({ line, verdict: "ask" });
    }
  });

  test("nor under a session prefix (`cat`, `cp`), nor as a glob or an attached option value", () => {
    for (const row of rows()) {
      const p = row.path(f);
      for (const line of [`cat ${p}`, `cp ${p} copy.txt`, `cp inside.txt ${p}`, `grep -r x ${p}`, `ls ${p.replace(/[^/]*$/, "*")}`, `tar -cf x.tar -C${p.replace(/\/[^/]*$/, "")} .`]) {
        const prefixes = ["cat", "cp", "grep", "ls", "tar"];
        expect({ line, covered: commandCoveredByPrefixes(line, prefixes, f.root, emptyGrants()) }).toEqual({ line, covered: false });
      }
    }
  });

  test("a cd through a link moves where the link leads: what follows is judged from there", () => {
    expect(isReadOnlyLine("cd self/.. && cat outside/secret.txt", f.root, emptyGrants())).toBe(false);
    expect(isReadOnlyLine("cd slash && cat etc/passwd", f.root, emptyGrants())).toBe(false);
    expect(isReadOnlyLine("cd sub/up && cat inside.txt", f.root, emptyGrants())).toBe(true);
  });

  test("the innocent links alone stay inside: reading through them runs unasked", () => {
    for (const line of ["cat self/inside.txt", "cat sub/here/../inside.txt", "cat sub/up/inside.txt", "ls self/self/sub"]) {
      expect({ line, readOnly: isReadOnlyLine(line, f.root, emptyGrants()) }).toEqual({ line, readOnly: true });
    }
  });
});

test("a workspace file named in a glob through link/.. is judged where the glob really looks", () => {
  writeFileSync(join(f.outside, "other.txt"), "x");
  expect(isReadOnlyLine("cat self/../outside/*.txt", f.root, emptyGrants())).toBe(false);
  expect(isReadOnlyLine("cat sub/here/../*.txt", f.root, emptyGrants())).toBe(true);
});
