// Red team 7 F4: --allow-read=~ showed ~22 credential stores no list named
// (~/.claude.json, a browser's Login Data, .pulumi, solana and ollama keys,
// shell histories…). A grant of the home (or of a folder holding it) shows
// its non-dot entries; a dot-entry only when a grant names it. Commands in the
// real sandbox and the file tools agree, with the flags a person passes.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();
const STORES = [".claude.json", ".config/BraveSoftware/Brave-Browser/Default/Login Data", ".pulumi/credentials.json", ".config/solana/id.json", ".ollama/id_ed25519", ".zhistory", ".local/share/atuin/history.db", ".config/gh/hosts.yml", "snap/firefox/common/.mozilla/firefox/p.default/logins.json", "snap/doctl/1234/.config/doctl/config.yaml"];
const SHOWN = ["notes.txt", "projects/app/README"];

function home(h: string): void {
  for (const f of [...STORES, ...SHOWN]) {
    mkdirSync(dirname(join(h, f)), { recursive: true });
    writeFileSync(join(h, f), `TOKEN-IN:${f}\n`);
  }
}

const tools = (h: string) => [
  toolUse("run_bash", { command: "cd ~ && grep -rh TOKEN-IN . | sort; echo exit=$?" }),
  toolUse("grep", { pattern: "TOKEN-IN", path: h }),
  toolUse("read_file", { path: join(h, ".claude.json") }),
];

describe.skipIf(!usable)("a grant of the home folder (--allow-run --allow-read=HOME)", () => {
  test("shows its non-dot entries to commands and the file tools; no dot-entry", async () => {
    const fake = runs.start([]);
    const ws = runs.workspace("bunker-home-grant-", fake.url);
    home(ws.home);
    fake.push(reply(tools(ws.home)), reply("Done."));
    const r = await runHeadless(ws.root, ws.env, ["-p", "go", "--allow-run", `--allow-read=${ws.home}`, "--no-prompt"]);
    expect(r.code).toBe(0);
    const [bash, grep, read] = toolResults(fake.requests[1]);
    expect(bash!.content).toBe("exit code 0\n\nTOKEN-IN:notes.txt\nTOKEN-IN:projects/app/README\nexit=0");
    expect(grep!.content).toContain("TOKEN-IN:notes.txt");
    expect(grep!.content).toContain("TOKEN-IN:projects/app/README");
    for (const f of STORES) expect(`${bash!.content}\n${grep!.content}`).not.toContain(f);
    expect(read!.is_error).toBe(true);
    expect(read!.content).toContain(`To grant it, run bunker with --allow-read=${join(ws.home, ".claude.json")}`);
  });

  test("a grant of the folder holding the home hides them too; a grant naming a dot folder shows that folder (its credential stores still hidden)", async () => {
    const fake = runs.start([]);
    const ws = runs.workspace("bunker-home-grant-", fake.url);
    home(ws.home);
    fake.push(reply(tools(ws.home)), reply("Done."));
    const r = await runHeadless(ws.root, ws.env, ["-p", "go", "--allow-run", `--allow-read=${ws.base},${join(ws.home, ".config")}`, "--no-prompt"]);
    expect(r.code).toBe(0);
    const [bash, grep] = toolResults(fake.requests[1]);
    // The named ~/.config shows what it holds but for the listed stores (gh); the rest of the home's dot-entries stay hidden.
    expect(bash!.content).toBe(
      "exit code 0\n\nTOKEN-IN:.config/BraveSoftware/Brave-Browser/Default/Login Data\nTOKEN-IN:.config/solana/id.json\nTOKEN-IN:notes.txt\nTOKEN-IN:projects/app/README\nexit=0",
    );
    for (const f of [".config/solana/id.json", "notes.txt"]) expect(grep!.content).toContain(`TOKEN-IN:${f}`);
    for (const f of [".claude.json", ".pulumi", ".ollama", ".zhistory", "atuin", ".config/gh"]) {
      expect(bash!.content).not.toContain(f);
      expect(grep!.content).not.toContain(f);
    }
  });
});
