// MCP servers keep the sandbox they started with: a deny-read look that hides a repository's objects after they
// started cannot reach them. Servers started or restarted later get everything hidden so far, and the person is told
// when running servers still see what commands no longer do.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyPathRules } from "../../../src/perms/policy.ts";
import { HistoryCheck } from "../../../src/sandbox/denied-history.ts";
import { noteHidden, objectsHiddenSoFar, resetHiddenObjects, serversMaySee, serversStartedWith } from "../../../src/sandbox/hidden-objects.ts";
import { newRepository } from "../../support/embedded-repo.ts";

const made: string[] = [];
// Other test files' looks in this process noted theirs.
beforeEach(() => resetHiddenObjects());
afterEach(() => {
  resetHiddenObjects();
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("what MCP servers were started with, and what looks hid since", () => {
  test("servers started with less than a later look hid may see it; the hidden stores are kept for later starts", () => {
    expect(serversMaySee(["/r/.git/objects"])).toBe(false);
    serversStartedWith(["/r/secret"]);
    expect(serversMaySee(["/r/.git/objects"])).toBe(true);
    noteHidden(["/r/.git/objects"]);
    expect(objectsHiddenSoFar()).toEqual(["/r/.git/objects"]);
    // A server started after with it hidden; the first one still runs as it was.
    serversStartedWith(["/r/secret", "/r/.git/objects"]);
    expect(serversMaySee(["/r/.git/objects"])).toBe(true);
  });

  test("a look that hides a repository after servers started says that they still see it, and how to restart them", async () => {
    const { base, root, g } = newRepository("bunker-hidden-objects-", { "a.txt": "a\n" });
    made.push(base);
    mkdirSync(join(root, "config"));
    writeFileSync(join(root, "config/secrets.env"), "DB_PASSWORD=hunter2\n");
    g("add", "config/secrets.env");
    g("commit", "-qm", "oops");
    serversStartedWith([join(root, "config/secrets.env")]);
    const told: string[] = [];
    const check = new HistoryCheck({ root, deny: { ...emptyPathRules(), paths: [join(root, "config/secrets.env")] }, home: "/nonexistent-home" });
    const got = await check.forCommand((l) => told.push(l));
    expect(got.objects).toEqual([join(root, ".git/objects")]);
    expect(told.at(-1)).toContain("MCP servers started before this was found still see them: /mcp restart NAME");
    expect(objectsHiddenSoFar()).toEqual([join(root, ".git/objects")]);
  });
});
