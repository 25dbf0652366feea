// The git wall's one code path (run_bash and MCP servers' write grants): what the walk before keeps read-only, and
// what the walk after does with what was planted. (The real sandbox runs it in planted, walk-gaps and mcp rows.)
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { forgetDoubt, wallAfter, wallBefore } from "../../../src/sandbox/git-wall.ts";
import { runsLaterMatcher } from "../../../src/perms/runs-later.ts";
import { tempDir } from "../../support/context.ts";

test("before: every repository site and runs-later file is read-only; after: a new repository is disarmed, a new .envrc set aside", () => {
  const root = tempDir("bunker-wall-");
  mkdirSync(join(root, "old/.git"), { recursive: true });
  writeFileSync(join(root, ".envrc"), "theirs\n");
  const later = { key: "t", match: runsLaterMatcher([root]) };
  const before = wallBefore([root], later, [], tempDir());
  if ("refusal" in before) throw new Error(before.refusal);
  expect(before.readOnly).toEqual([join(root, "old/.git"), join(root, ".envrc")]);
  mkdirSync(join(root, "new/.git"), { recursive: true });
  writeFileSync(join(root, "new/.git/config"), "[core]\n\tfsmonitor = evil\n");
  writeFileSync(join(root, "new/.envrc"), "evil\n");
  const lines = wallAfter([root], before.state).join("\n");
  expect(lines).toContain("bunker disarmed the git repository the command created at new/.git (core.fsmonitor commented out in config)");
  expect(lines).toContain("bunker set aside new/.envrc, which the command created");
  expect(readFileSync(join(root, "new/.git/config"), "utf8")).toContain("# disarmed by bunker:");
});

test("red team 6 F12j: folders that never hold still while a walk reads them: before, the command is refused; after, every later one is, until bunker starts again", async () => {
  const root = tempDir("bunker-wall-churn-");
  mkdirSync(join(root, "tools/.git"), { recursive: true });
  mkdirSync(join(root, "decoy"));
  // Enough folders that a walk takes longer than the gaps between the swaps.
  for (let i = 0; i < 40; i++) for (let j = 0; j < 50; j++) mkdirSync(join(root, `pad${i}/d${j}`), { recursive: true });
  const later = { key: "churn", match: runsLaterMatcher([root]) };
  const before = wallBefore([root], later, [], tempDir());
  if ("refusal" in before) throw new Error(before.refusal);
  // Another session's command swapping tools/ for a link to a decoy and back, for longer than the walk's rounds.
  const toggle = Bun.spawn(["python3", "-c", `import os,time
os.chdir(${JSON.stringify(root)})
end=time.time()+60
print("go", flush=True)
while time.time()<end and not os.path.exists("stop"):
    os.rename("tools","tools2"); os.symlink("decoy","tools")
    os.unlink("tools"); os.rename("tools2","tools")`], { stdout: "pipe" });
  try {
    // Swapping from now on.
    await toggle.stdout.getReader().read();
    // On a loaded machine the swapper can go unscheduled for a whole walk, and a walk that saw nothing move rightly
    // passes: try a few walks, each must either pass or refuse with the sentence, and one must refuse.
    let refused = wallBefore([root], later, [], tempDir());
    for (let k = 0; k < 8 && !("refusal" in refused); k++) refused = (await Bun.sleep(25), wallBefore([root], later, [], tempDir()));
    expect("refusal" in refused && refused.refusal).toStartWith("bunker's check for git repositories and files that run later saw folders change while it read them (");
    let lines = wallAfter([root], before.state).join("\n");
    for (let k = 0; k < 8 && !lines.includes("bunker refuses further commands"); k++) lines = (await Bun.sleep(25), wallAfter([root], before.state).join("\n"));
    expect(lines).toContain("bunker refuses further commands in this session");
    writeFileSync(join(root, "stop"), "");
    await toggle.exited;
    // Still, and the session still refuses: what the command made in the moving folders was not checked.
    const next = wallBefore([root], later, [], tempDir());
    expect("refusal" in next && next.refusal).toStartWith("bunker runs no more commands in this session: bunker's check for git repositories");
    expect("refusal" in next && next.refusal).toContain("then start bunker again.");
  } finally {
    writeFileSync(join(root, "stop"), "");
    await toggle.exited;
    forgetDoubt();
  }
  expect("refusal" in wallBefore([root], later, [], tempDir())).toBe(false);
});
