// Red team 7 F4: --allow-read=~ showed ~22 credential stores no list named
// (~/.claude.json, a browser's Login Data, .pulumi, solana and ollama keys,
// shell histories…). A grant of the home (or of a folder holding it) shows
// its non-dot entries; a dot-entry only when a grant names it. Commands in the
// real sandbox and the file tools agree, with the flags a person passes.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
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

describe.skipIf(!usable)("a home granted for writing (--allow-run --allow-write=HOME, the workspace elsewhere: red team 9 F07)", () => {
  test("its non-dot entries are written; no dot-entry can be made or reached (~/.gdbinit, a folder in a shown ~/.config), and bunker's state folder's ~/.local stays hidden", async () => {
    const fake = runs.start([]);
    const ws = runs.workspace("bunker-home-write-", fake.url);
    home(ws.home);
    // git's own config in ~/.config: the sandbox shows it, so ~/.config is entered (its other entries hidden).
    mkdirSync(join(ws.home, ".config/git"), { recursive: true });
    writeFileSync(join(ws.home, ".config/git/config"), "[user]\n\tname = Ann\n");
    const site = "~/.local/lib/python3.11/site-packages";
    const command = [
      "echo more >> ~/notes.txt && echo appended",
      "touch ~/.gdbinit 2>&1 | sed 's/.*: //'",
      `mkdir -p ${site} 2>&1 | sed 's/.*: //'; (echo 'import os' > ${site}/zz.pth) 2>&1 | sed 's/.*: //'`,
      "ls -A ~/.local | wc -l",
      "mkdir ~/.config/wezterm 2>&1 | sed 's/.*: //'",
      "mv ~/.local ~/local2 2>&1 | sed 's/.*: //'",
      "git config --global user.name",
    ].join("; ");
    fake.push(reply([toolUse("run_bash", { command })]), reply("Done."));
    const r = await runHeadless(ws.root, ws.env, ["-p", "go", "--allow-run", `--allow-write=${ws.home}`, "--no-prompt"]);
    expect(r.code).toBe(0);
    const [bash] = toolResults(fake.requests[1]);
    expect(bash!.content).toBe(
      ["exit code 0", "", "appended", "Read-only file system", "Read-only file system", "No such file or directory", "0", "Read-only file system", "Read-only file system", "Ann"].join("\n"),
    );
    expect(readFileSync(join(ws.home, "notes.txt"), "utf8")).toBe("TOKEN-IN:notes.txt\nmore\n");
    for (const planted of [".gdbinit", ".local/lib", ".config/wezterm", "local2"]) expect(existsSync(join(ws.home, planted))).toBe(false);
  });

  test("a stowed dotfile's content in a non-dot folder is read-only too, whatever the tool that reads it: ~/.gdbinit -> dotfiles/gdbinit, ~/.config/starship.toml -> … (red team 10's F01)", async () => {
    const fake = runs.start([]);
    const ws = runs.workspace("bunker-home-stow-", fake.url);
    mkdirSync(join(ws.home, "dotfiles"), { recursive: true });
    mkdirSync(join(ws.home, ".config"), { recursive: true });
    for (const f of ["gdbinit", "starship.toml", "notes.txt"]) writeFileSync(join(ws.home, "dotfiles", f), `${f}\n`);
    symlinkSync("dotfiles/gdbinit", join(ws.home, ".gdbinit"));
    symlinkSync("../dotfiles/starship.toml", join(ws.home, ".config/starship.toml"));
    const command = ["gdbinit", "starship.toml", "notes.txt"].map((f) => `(echo 'shell touch /tmp/pwned' >> ~/dotfiles/${f} && echo ${f} written) 2>&1 | sed 's/.*: //'`).join("; ");
    fake.push(reply([toolUse("run_bash", { command })]), reply("Done."));
    const r = await runHeadless(ws.root, ws.env, ["-p", "go", "--allow-run", `--allow-write=${ws.home}`, "--no-prompt"]);
    expect(r.code).toBe(0);
    // Before: "gdbinit written", and the person's next gdb ran the line on the host.
    expect(toolResults(fake.requests[1])[0]!.content).toStartWith(["exit code 0", "", "Read-only file system", "Read-only file system", "notes.txt written"].join("\n"));
    expect(readFileSync(join(ws.home, "dotfiles/gdbinit"), "utf8")).toBe("gdbinit\n");
  });
});
