// bunker's own state folder (sessions, the change journal, MCP consent) is
// never a command's to read or write, even when the workspace holds it (bunker
// run in the home folder): bunker replays a journal found there at its next
// start, outside the sandbox. Real runs in bubblewrap.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../../src/sandbox/detect.ts";
import { stateDirView } from "../../../src/sandbox/state-dir.ts";
import { runAllowed } from "../../support/confined.ts";
import { unseenDir } from "../../support/context.ts";

test("outside the workspace the folder is hidden; inside it, hidden and every folder between pinned; a workspace inside it: left alone", () => {
  expect(stateDirView("/home/u/.local/state/bunker", "/home/u/proj")).toEqual({ hidden: ["/home/u/.local/state/bunker"], pinned: [] });
  expect(stateDirView("/home/u/.local/state/bunker", "/home/u")).toEqual({ hidden: ["/home/u/.local/state/bunker"], pinned: ["/home/u/.local", "/home/u/.local/state"] });
  expect(stateDirView("/w/state", "/w")).toEqual({ hidden: ["/w/state"], pinned: [] });
  expect(stateDirView("/home/u/.local/state/bunker", "/home/u/.local/state/bunker/mcp/x")).toEqual({ hidden: [], pinned: [] });
  // A folder granted for writing that holds it (--allow-write=~/.local) is pinned the same way.
  expect(stateDirView("/home/u/.local/state/bunker", "/home/u/proj", ["/home/u/.local", "/data"])).toEqual({ hidden: ["/home/u/.local/state/bunker"], pinned: ["/home/u/.local/state"] });
});

describe.skipIf(detectSandbox().kind !== "bubblewrap")("bunker run in the home folder (the workspace holds the state folder)", () => {
  let home: string;
  let state: string;
  beforeAll(() => {
    home = realpathSync(unseenDir("bunker-state-home-"));
    state = join(home, ".local", "state", "bunker");
    mkdirSync(join(state, "journal"), { recursive: true });
    writeFileSync(join(state, "sessions.db"), "the person's sessions");
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  const run = (command: string, root = home, writable: string[] = []) => runAllowed(root, command, { env: { HOME: home, PATH: "/usr/bin:/bin" }, home, sessionsDir: state, writable });

  test("a command cannot read the sessions, write a journal, or move a folder above them away and make its own", async () => {
    const out = await run(
      `cat ${state}/sessions.db; echo forged > ${state}/journal/x.json; echo "sessions: $(ls -A ${state} | wc -l)"; ` +
        `mv ${home}/.local ${home}/.l2; mv ${home}/.local/state ${home}/.local/s2; rm -rf ${home}/.local/state 2>&1 | tail -1; ` +
        `echo kept > ${home}/.local/other && cat ${home}/.local/other`,
    );
    expect(out).toContain(`cat: ${state}/sessions.db: No such file or directory`);
    expect(out).toContain(`${state}/journal/x.json: No such file or directory`);
    expect(out).toContain("sessions: 0");
    expect(out).toContain(`mv: cannot move '${home}/.local' to '${home}/.l2': Device or resource busy`);
    expect(out).toContain(`mv: cannot move '${home}/.local/state' to '${home}/.local/s2': Device or resource busy`);
    // The rest of the folders above stays the command's to write.
    expect(out).toContain("kept");
    expect(readFileSync(join(state, "sessions.db"), "utf8")).toBe("the person's sessions");
    expect(existsSync(join(state, "journal", "x.json"))).toBe(false);
    expect(existsSync(join(home, ".l2"))).toBe(false);
  });

  test("the same in a folder granted for writing that holds it (--allow-write=~/.local)", async () => {
    const proj = join(home, "proj");
    mkdirSync(proj, { recursive: true });
    const out = await run(`echo forged > ${state}/journal/y.json; mv ${home}/.local/state ${home}/.local/s3; echo kept > ${home}/.local/granted && cat ${home}/.local/granted`, proj, [join(home, ".local")]);
    expect(out).toContain(`${state}/journal/y.json: No such file or directory`);
    expect(out).toContain(`mv: cannot move '${home}/.local/state' to '${home}/.local/s3': Device or resource busy`);
    expect(out).toContain("kept");
    expect(existsSync(join(home, ".local", "s3"))).toBe(false);
  });
});
