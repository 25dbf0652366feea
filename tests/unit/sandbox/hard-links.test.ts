// A file git obeys with a second name (a hard link) the command can write (red team 6's F12l). Real rows: the
// attack runs in bubblewrap (the judge allows everything), then the person's git runs on the host; each row first
// runs the same attack unconfined, so the marker is known to fire when nothing stops it.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { changedSince, linkedFiles, OWN_COPY_MAX, ownCopies, ownCopy } from "../../../src/sandbox/hard-links.ts";
import { plantingBench } from "../../support/planting.ts";

const usable = detectSandbox().kind === "bubblewrap";
const { hostEnv, MARK, touch, hostGit, workspace, sandboxed, next } = plantingBench("bunker-hardlinks-");
const sh = (cwd: string, command: string) => expect(Bun.spawnSync(["bash", "-c", command], { cwd, env: hostEnv }).exitCode).toBe(0);

test("ownCopies gives each hard-linked file in a git directory its own copy (content and mode kept), objects left alone", () => {
  const dir = next("gd");
  mkdirSync(join(dir, "hooks"), { recursive: true });
  mkdirSync(join(dir, "objects"));
  writeFileSync(join(dir, "config"), "[core]\n");
  writeFileSync(join(dir, "hooks/pre-commit"), "#!/bin/sh\n");
  chmodSync(join(dir, "hooks/pre-commit"), 0o755);
  writeFileSync(join(dir, "objects/o"), "x");
  for (const [f, other] of [["config", "a"], ["hooks/pre-commit", "b"], ["objects/o", "c"]]) linkSync(join(dir, f!), join(dir, `../${other}-${f!.replace("/", "_")}`));
  const watched = linkedFiles([join(dir, "config"), join(dir, "hooks/pre-commit")]);
  expect(watched.size).toBe(2);
  expect(ownCopies(dir).sort()).toEqual(["config", "hooks/pre-commit"]);
  expect(statSync(join(dir, "config")).nlink).toBe(1);
  expect(statSync(join(dir, "objects/o")).nlink).toBe(2);
  expect(statSync(join(dir, "hooks/pre-commit")).mode & 0o777).toBe(0o755);
  expect(readFileSync(join(dir, "config"), "utf8")).toBe("[core]\n");
  // Replaced by a copy: a new identity, so it counts as changed (checked again, which finds nothing to disarm).
  expect(changedSince(watched).sort()).toEqual([join(dir, "config"), join(dir, "hooks/pre-commit")]);
});

test("red team 7 F10: a link planted where the copy goes is never written through; the copy's name cannot be guessed", () => {
  const dir = next("gd-f10");
  mkdirSync(dir, { recursive: true });
  const victim = join(dir, "../bashrc-victim");
  writeFileSync(victim, "# the person's own\n");
  chmodSync(victim, 0o644);
  writeFileSync(join(dir, "config"), "[core]\n\tfsmonitor = evil\n");
  linkSync(join(dir, "config"), join(dir, "../notes.txt"));
  // Every name the copy once took (config.bunker-copy-PID), this process's included, leads to the victim.
  for (const pid of [process.pid, process.pid + 1, 1]) symlinkSync(victim, join(dir, `config.bunker-copy-${pid}`));
  expect(ownCopies(dir)).toEqual(["config"]);
  expect(readFileSync(victim, "utf8")).toBe("# the person's own\n");
  expect(statSync(victim).mode & 0o777).toBe(0o644);
  expect(statSync(join(dir, "config")).nlink).toBe(1);
  expect(readFileSync(join(dir, "config"), "utf8")).toBe("[core]\n\tfsmonitor = evil\n");
  // Nothing of bunker's is left beside it: only the planted links.
  expect(readdirSync(dir).filter((n) => n.startsWith("config.bunker-copy-")).length).toBe(3);
});

describe.skipIf(!usable)("a hard link into a git directory does not carry a command's writes into what git obeys (real bubblewrap)", () => {
  test("red team 6, F12l: git init sub && ln sub/.git/config notes.txt, then a later command appends core.fsmonitor to notes.txt", async () => {
    const first = "git init -q sub && ln sub/.git/config notes.txt";
    const second = `printf '[core]\\n\\tfsmonitor = "${touch}; false"\\n' >> notes.txt`;
    const control = workspace();
    for (const c of [first, second]) sh(control, c);
    hostGit(join(control, "sub"), "status");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace();
    const out1 = await sandboxed(root, first);
    expect(out1.split("\n")[0]).toBe("exit code 0");
    expect(out1).toContain("given copies of their own (they had another name, a hard link, the command could write later): config");
    expect(statSync(join(root, "sub/.git/config")).nlink).toBe(1);
    expect((await sandboxed(root, second)).split("\n")[0]).toBe("exit code 0");
    expect(readFileSync(join(root, "notes.txt"), "utf8")).toContain("fsmonitor");
    expect(hostGit(join(root, "sub"), "status").code).toBe(0);
    expect(existsSync(MARK)).toBe(false);
  });

  test("the person's own hook hard-linked to a tracked script: a command rewriting the script has the hook disarmed", async () => {
    const setup = (root: string) => {
      mkdirSync(join(root, "scripts"));
      writeFileSync(join(root, "scripts/pre-commit"), "#!/bin/sh\nexit 0\n");
      chmodSync(join(root, "scripts/pre-commit"), 0o755);
      linkSync(join(root, "scripts/pre-commit"), join(root, ".git/hooks/pre-commit"));
    };
    const plant = `printf '#!/bin/sh\\n${touch}\\n' > scripts/pre-commit`;
    const control = workspace(setup);
    sh(control, plant);
    hostGit(control, "commit", "-qm", "next", "--allow-empty");
    expect(existsSync(MARK)).toBe(true);
    rmSync(MARK);

    const root = workspace(setup);
    const out = await sandboxed(root, plant);
    expect(out.split("\n")[0]).toBe("exit code 0");
    expect(out).toContain("bunker disarmed .git/hooks/pre-commit, which git obeys and which the command changed through another name of it (a hard link, now given a copy of its own): renamed to pre-commit.bunker-disarmed.");
    expect(hostGit(root, "commit", "-qm", "next", "--allow-empty").code).toBe(0);
    expect(existsSync(MARK)).toBe(false);
  });

  test("an unchanged hard-linked hook of the person's is left as it is", async () => {
    const root = workspace((r) => {
      writeFileSync(join(r, "hook.sh"), "#!/bin/sh\nexit 0\n");
      chmodSync(join(r, "hook.sh"), 0o755);
      linkSync(join(r, "hook.sh"), join(r, ".git/hooks/pre-commit"));
    });
    const out = await sandboxed(root, "echo hi > other.txt");
    expect(out).not.toContain("disarmed");
    expect(statSync(join(root, ".git/hooks/pre-commit")).nlink).toBe(2);
  });
});

test("red team 8 F5: a sparse file keeps its holes in its copy; one over the cap is not copied at all", () => {
  const dir = next("sparse");
  mkdirSync(dir, { recursive: true });
  const f = join(dir, "description");
  sh(dir, "truncate -s 8M description && printf data | dd of=description bs=1 seek=4M conv=notrunc status=none && touch -d 2020-01-02 description && ln description other");
  expect(ownCopy(f)).toBe(true);
  const st = statSync(f);
  expect(st.nlink).toBe(1);
  expect(st.size).toBe(8 * 1024 * 1024);
  expect(st.blocks * 512).toBeLessThanOrEqual(128 * 1024); // the data's 64 KB chunk, not 8 MB of zeros
  expect(st.mtime.getUTCFullYear()).toBe(2020);
  expect(readFileSync(f).subarray(4 * 1024 * 1024, 4 * 1024 * 1024 + 4).toString()).toBe("data");
  expect(readFileSync(f).equals(readFileSync(join(dir, "other")))).toBe(true);
  sh(dir, "truncate -s 1G big && ln big big2");
  expect(() => ownCopy(join(dir, "big"), OWN_COPY_MAX)).toThrow("has another name and is 1073741824 bytes, more than the 16777216 bunker copies");
  expect(statSync(join(dir, "big")).nlink).toBe(2);
});
