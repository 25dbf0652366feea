// A --deny-write path or glob that reaches a folder or file granted for
// writing OUTSIDE the workspace holds in the sandbox as it does inside the
// workspace (red team 11's F07): bunker itself, the judge allowing every line
// (--allow-run), runs what a prompt-injected model asks for, and the denied
// files stay as they were. A deny wins over a grant: one that covers a grant
// (or the workspace) whole makes it read-only whole.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import type { FakeAnthropic } from "../support/fake-anthropic.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { testServer, writeUserSettings } from "../support/mcp.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();
let fake: FakeAnthropic | undefined;
const run = (command: string) => toolUse("run_bash", { command });

/** A notes folder beside the workspace (`where`: in the home, or beside it), with files to deny and one to keep writable. */
function setup(where: "home" | "beside") {
  fake = runs.start([]);
  const { base, root, home, env } = runs.workspace("bunker-deny-outside-", fake.url);
  const notes = where === "home" ? join(home, "notes") : join(base, "notes");
  mkdirSync(join(notes, "private"), { recursive: true });
  mkdirSync(join(notes, "keys"), { recursive: true });
  mkdirSync(join(notes, "sub"), { recursive: true });
  writeFileSync(join(notes, "secret.md"), "orig secret\n");
  writeFileSync(join(notes, "private/plan.md"), "orig plan\n");
  writeFileSync(join(notes, "keys/a.key"), "orig key\n");
  writeFileSync(join(notes, "todo.md"), "orig todo\n");
  writeFileSync(join(notes, "sub/s.md"), "orig sub\n");
  return { base, root, env, notes, flag: where === "home" ? "~/notes" : notes };
}

/** bunker runs `commands` (NOTES: the notes folder) in one turn under `flags`; their results. */
async function attack(s: ReturnType<typeof setup>, commands: string[], flags: string[]) {
  fake!.push(reply(commands.map((c) => run(c.replaceAll("NOTES", s.notes)))), reply("Done."));
  const r = await runHeadless(s.root, s.env, ["-p", "go", "-A", "--allow-run", "--no-prompt", ...flags]);
  expect(r.code).toBe(0);
  const results = toolResults(fake!.requests[1]);
  expect(results).toHaveLength(commands.length);
  return results;
}

for (const where of ["home", "beside"] as const) {
  describe.skipIf(!usable)(`a folder granted for writing ${where === "home" ? "in the home (~/notes)" : "beside the workspace"}`, () => {
    test("a denied file, a denied folder, a denied DIR/** and a denied file glob in it cannot be written, renamed away or made anew; the rest can", async () => {
      const s = setup(where);
      await attack(
        s,
        [
          "echo pwned >> NOTES/secret.md",
          "echo pwned > NOTES/private/plan.md",
          "echo pwned > NOTES/private/new.md",
          "echo pwned > NOTES/sub/new.md",
          "echo pwned >> NOTES/keys/a.key",
          "mv NOTES/secret.md NOTES/gone.md; echo pwned > NOTES/secret.md",
          "mv NOTES/private NOTES/p2; mkdir -p NOTES/private && echo pwned > NOTES/private/plan.md",
          "rm -f NOTES/keys/a.key; echo pwned > NOTES/keys/a.key",
          "echo done >> NOTES/todo.md",
        ],
        [`--allow-write=${s.flag}`, `--deny-write=${s.flag}/secret.md,${s.flag}/private/**,${s.flag}/**/*.key,${s.flag}/sub`],
      );
      expect(readFileSync(join(s.notes, "secret.md"), "utf8")).toBe("orig secret\n");
      expect(readFileSync(join(s.notes, "private/plan.md"), "utf8")).toBe("orig plan\n");
      expect(existsSync(join(s.notes, "private/new.md"))).toBe(false);
      // A denied folder (a path, not a glob) is read-only whole: nothing new is made in it, not even to be set aside.
      expect(existsSync(join(s.notes, "sub/new.md"))).toBe(false);
      expect(existsSync(join(s.notes, "sub/new.md.bunker-set-aside"))).toBe(false);
      expect(readFileSync(join(s.notes, "keys/a.key"), "utf8")).toBe("orig key\n");
      expect(existsSync(join(s.notes, "gone.md"))).toBe(false);
      expect(existsSync(join(s.notes, "p2"))).toBe(false);
      // What no rule covers is the command's to write: the grant still works.
      expect(readFileSync(join(s.notes, "todo.md"), "utf8")).toBe("orig todo\ndone\n");
    });
  });
}

describe.skipIf(!usable)("a deny-write that covers a write grant whole wins over it", () => {
  test("a granted file denied by path or by glob, a granted folder inside a denied one or denied by its DIR/**: read-only whole", async () => {
    const s = setup("home");
    const results = await attack(
      s,
      ["echo pwned >> NOTES/secret.md", "echo pwned >> NOTES/keys/a.key", "echo pwned > NOTES/sub/new.md", "echo pwned > NOTES/private/new.md"],
      [
        `--allow-write=${s.flag}/secret.md,${s.flag}/keys/a.key,${s.flag}/sub,${s.flag}/private`,
        `--deny-write=${s.flag}/secret.md,${s.flag}/**/*.key,${s.flag},${s.flag}/private/**`,
      ],
    );
    for (const r of results) expect(r.content).toContain("Read-only file system");
    expect(readFileSync(join(s.notes, "secret.md"), "utf8")).toBe("orig secret\n");
    expect(readFileSync(join(s.notes, "keys/a.key"), "utf8")).toBe("orig key\n");
    expect(existsSync(join(s.notes, "sub/new.md"))).toBe(false);
    expect(existsSync(join(s.notes, "private/new.md"))).toBe(false);
  });

  test("a denied folder holding the workspace: the workspace is read-only to commands, and the model is told which rule", async () => {
    const s = setup("beside");
    writeFileSync(join(s.root, "a.txt"), "orig\n");
    const [r] = await attack(s, ["echo pwned >> a.txt; echo pwned > b.txt"], [`--deny-write=${s.base}`]);
    expect(r!.content).toContain("Read-only file system");
    expect(r!.content).toContain(`The person denied writes to ${s.base}`);
    expect(readFileSync(join(s.root, "a.txt"), "utf8")).toBe("orig\n");
    expect(existsSync(join(s.root, "b.txt"))).toBe(false);
  });
});

describe.skipIf(!usable)("an MCP server's write folder (its settings' \"write\": [\"~/notes\"])", () => {
  test("a denied file, folder and glob match in it stay as they were; a write folder a deny covers whole is read-only; the rest is writable", async () => {
    const s = setup("home");
    mkdirSync(join(s.notes, "../other"), { recursive: true });
    writeUserSettings(s.env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { write: ["~/notes", "~/other"] }) } });
    const steps = [
      { write: join(s.notes, "secret.md"), content: "pwned\n", append: true },
      { write: join(s.notes, "sub/new.md"), content: "pwned\n" },
      { write: join(s.notes, "keys/a.key"), content: "pwned\n" },
      { write: join(s.notes, "../other/x.md"), content: "pwned\n" },
      { write: join(s.notes, "todo.md"), content: "done\n", append: true },
    ];
    fake!.push(...steps.map((step) => reply([toolUse("mcp__box__probe", step)])), reply("Done."));
    const r = await runHeadless(s.root, s.env, ["-p", "go", "--no-prompt", `--deny-write=~/notes/secret.md,~/notes/sub,~/notes/**/*.key,~/other`]);
    expect(r.code).toBe(0);
    const results = fake!.requests.slice(1).map((req) => toolResults(req)[0]?.content ?? "");
    for (const x of results.slice(0, 4)) expect(x).toContain("EROFS");
    expect(readFileSync(join(s.notes, "secret.md"), "utf8")).toBe("orig secret\n");
    expect(existsSync(join(s.notes, "sub/new.md"))).toBe(false);
    expect(readFileSync(join(s.notes, "keys/a.key"), "utf8")).toBe("orig key\n");
    expect(existsSync(join(s.notes, "../other/x.md"))).toBe(false);
    expect(readFileSync(join(s.notes, "todo.md"), "utf8")).toBe("orig todo\ndone\n");
  });
});

describe.skipIf(!usable)("a bare --deny-write (\"nothing is written\") and an MCP server's write folder (reviewer's R12-09)", () => {
  test("the server's write folder is read-only to it, as the granted folder is to a command", async () => {
    const s = setup("home");
    writeUserSettings(s.env, { allow: ["mcp:box/*"], mcpServers: { box: testServer(["--name", "box"], { write: ["~/notes"] }) } });
    fake!.push(
      reply([toolUse("mcp__box__probe", { write: join(s.notes, "todo.md"), content: "pwned by the server\n", append: true })]),
      reply([run(`echo pwned by a command >> ${s.notes}/todo.md`)]),
      reply([run(`cat ${s.notes}/todo.md`)]),
      reply("Done."),
    );
    const r = await runHeadless(s.root, s.env, ["-p", "go", "--no-prompt", "--allow-run", "--allow-write=~/notes", "--deny-write"]);
    expect(r.code).toBe(0);
    const [server, command, read] = fake!.requests.slice(1).map((req) => toolResults(req)[0]?.content ?? "");
    expect(server).toContain("EROFS");
    // The command is told why, not sent to the grant the person gave: the folder is shown, read-only.
    expect(command).toContain("Read-only file system");
    expect(command).toContain("a bare --deny-write");
    expect(command).not.toContain("private empty home");
    expect(read).toContain("orig todo");
    expect(readFileSync(join(s.notes, "todo.md"), "utf8")).toBe("orig todo\n");
  });
});
