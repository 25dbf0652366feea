// A deny-read file DVC tracks: `dvc add data/secret.csv` keeps its bytes in .dvc/cache by md5 (DVC 3:
// files/md5/XX/REST), a copy the mask on the file's path does not cover. The cache is hidden whole when a rule
// covers a file DVC tracks (or whose bytes are in it), and left alone when no denied file is DVC's.
// The control shows the channel: the same command reads the secret from the cache without the rule.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();
const SECRET = "card,4111111111111111,TOPSECRET\n";
const READ = "grep -rh TOPSECRET .dvc/cache; ls .dvc/cache/files/md5 | wc -l; echo read";

/** What `dvc init && dvc add data/secret.csv` leaves (the cache as DVC 3 lays it out), and a .env beside it. */
function dvcProject(root: string) {
  const md5 = new Bun.CryptoHasher("md5").update(SECRET).digest("hex");
  mkdirSync(join(root, ".dvc/cache/files/md5", md5.slice(0, 2)), { recursive: true });
  mkdirSync(join(root, "data"));
  writeFileSync(join(root, ".dvc/config"), "[core]\n    autostage = true\n");
  writeFileSync(join(root, ".dvc/cache/files/md5", md5.slice(0, 2), md5.slice(2)), SECRET);
  writeFileSync(join(root, "data/secret.csv"), SECRET);
  writeFileSync(join(root, "data/secret.csv.dvc"), `outs:\n- md5: ${md5}\n  size: ${SECRET.length}\n  hash: md5\n  path: secret.csv\n`);
  writeFileSync(join(root, ".env"), "TOKEN=other\n");
}

async function read(flags: string[]) {
  const fake = runs.start([reply([toolUse("run_bash", { command: READ })]), reply("Done.")]);
  const { root, env } = runs.workspace("bunker-deny-dvc-", fake.url);
  dvcProject(root);
  const r = await runHeadless(root, env, ["-p", "go", "--allow-run", "--no-prompt", ...flags]);
  expect(r.code).toBe(0);
  const [got] = toolResults(fake.requests[1]);
  expect(got!.content).toContain("read");
  return got!.content;
}

describe.skipIf(!usable)("a deny-read file DVC keeps in its cache", () => {
  test("the control: without the rule the cache has the secret", async () => {
    expect(await read([])).toContain("TOPSECRET");
  }, 60_000);

  test("a rule naming the file hides the cache whole", async () => {
    const out = await read(["--deny-read=data/secret.csv"]);
    expect(out).not.toContain("TOPSECRET");
    expect(out).toMatch(/^0$/m);
  }, 60_000);

  test("a glob matching it hides the cache too", async () => {
    expect(await read(["--deny-read=data/*.csv"])).not.toContain("TOPSECRET");
  }, 60_000);

  test("a rule on a file DVC does not keep leaves the cache to commands", async () => {
    expect(await read(["--deny-read=.env"])).toContain("TOPSECRET");
  }, 60_000);
});
