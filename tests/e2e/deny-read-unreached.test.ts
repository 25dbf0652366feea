// Security N2's leftovers: a deny-read file's old version in the object store that a walk from the refs does not
// reach. A commit no ref or reflog entry holds any more (its branch deleted, the reflog expired, not yet pruned:
// `git fsck --unreachable` names it, `git show` prints it), and a tag straight at a tree (`git tag snap $(git
// write-tree)`, lightweight or annotated). Each control reads the old secret with the same command, without the rule.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import { git, isolatedGitEnv } from "../support/embedded-repo.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();

const READ = [
  "for o in $(git fsck --unreachable --no-reflogs 2>/dev/null | awk '{print $3}'); do git show $o 2>/dev/null; done | grep -a TOPSECRET",
  "for r in $(git for-each-ref --format='%(refname)'); do git ls-tree -r $r 2>/dev/null | awk '{print $3}' | xargs -r -n1 git cat-file -p 2>/dev/null; done | grep -a TOPSECRET",
  "echo read",
].join("; ");

type Shape = "unreachable" | "tag" | "annotated";

/** A repository where .env is ignored, with an old version of it left as `shape` says, and a new one in the work tree. */
function setup(root: string, home: string, shape: Shape) {
  const g = (...args: string[]) => git(root, isolatedGitEnv(home), ...args);
  g("init", "-q", "-b", "main");
  writeFileSync(join(root, ".gitignore"), ".env\n");
  g("add", ".");
  g("commit", "-qm", "init");
  writeFileSync(join(root, ".env"), "TOKEN=v1_TOPSECRET\n");
  if (shape === "unreachable") {
    g("switch", "-qc", "old");
    g("add", "-f", ".env");
    g("commit", "-qm", "leak");
    g("switch", "-q", "main");
    g("branch", "-qD", "old");
    g("reflog", "expire", "--expire=now", "--all");
  } else {
    g("add", "-f", ".env");
    const tree = g("write-tree").trim();
    g("rm", "-q", "--cached", ".env");
    if (shape === "tag") g("tag", "snap", tree);
    else g("tag", "-a", "-m", "snap", "snap", tree);
  }
  writeFileSync(join(root, ".env"), "TOKEN=v2_current\n");
}

async function read(shape: Shape, flags: string[]) {
  const fake = runs.start([reply([toolUse("run_bash", { command: READ })]), reply("Done.")]);
  const { root, home, env } = runs.workspace("bunker-deny-unreached-", fake.url);
  setup(root, home, shape);
  const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--no-prompt", ...flags]);
  expect(r.code).toBe(0);
  const [got] = toolResults(fake.requests[1]);
  expect(got!.content).toContain("read");
  return { out: got!.content, stderr: r.stderr };
}

describe.skipIf(!usable)("a deny-read file's old version that no ref's history reaches (security N2's leftovers)", () => {
  for (const shape of ["unreachable", "tag", "annotated"] as const) {
    test(`${shape}: the control reads it without the rule`, async () => {
      expect((await read(shape, [])).out).toContain("TOPSECRET");
    }, 60_000);

    test(`${shape}: hidden under --deny-read=.env, and the person is told`, async () => {
      const { out, stderr } = await read(shape, ["--deny-read=.env"]);
      expect(out).not.toContain("TOPSECRET");
      expect(stderr).toContain(shape === "unreachable" ? "a version of .env that git held" : ".env is in git history");
    }, 60_000);
  }
});
