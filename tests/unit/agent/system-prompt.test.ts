// The system prompt: the workspace, platform, date and git state, and the
// project's AGENTS.md (or CLAUDE.md) read through the same rules as any read.
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSystemPrompt } from "../../../src/agent/system-prompt.ts";
import { tempDir } from "../../support/context.ts";

const now = new Date("2026-03-04T12:00:00Z");
const inside = (root: string) => (real: string) => real === root || real.startsWith(root + "/");

describe("buildSystemPrompt", () => {
  test("names the workspace, platform and date; no repository here", () => {
    const root = tempDir("bunker-sp-");
    const p = buildSystemPrompt(root, { canRead: inside(root), now });
    expect(p).toStartWith("You are bunker, a coding agent");
    expect(p).toContain(`Workspace root: ${root}\nPlatform: ${process.platform} (${process.arch})\nDate: 2026-03-04\nGit repository: no`);
    expect(p).not.toContain("Project instructions");
  });

  test("a repository at the root, or around the workspace", () => {
    const repo = tempDir("bunker-sp-");
    mkdirSync(join(repo, ".git"));
    mkdirSync(join(repo, "pkg"));
    expect(buildSystemPrompt(repo, { canRead: () => true, now })).toEndWith("Git repository: yes");
    expect(buildSystemPrompt(join(repo, "pkg"), { canRead: () => true, now })).toContain(`Git repository: yes (the workspace is a folder of the repository at ${repo})`);
  });

  test("AGENTS.md before CLAUDE.md, trimmed; CLAUDE.md when there is no AGENTS.md", () => {
    const root = tempDir("bunker-sp-");
    writeFileSync(join(root, "CLAUDE.md"), "Prefer tabs.\n");
    expect(buildSystemPrompt(root, { canRead: inside(root), now })).toEndWith("Project instructions from CLAUDE.md:\nPrefer tabs.");
    writeFileSync(join(root, "AGENTS.md"), "\n  Run make check.  \n");
    expect(buildSystemPrompt(root, { canRead: inside(root), now })).toEndWith("Project instructions from AGENTS.md:\nRun make check.");
  });

  test("notes past 16,000 characters are cut, and say so", () => {
    const root = tempDir("bunker-sp-");
    writeFileSync(join(root, "AGENTS.md"), "n".repeat(20_000));
    const p = buildSystemPrompt(root, { canRead: inside(root), now });
    expect(p).toEndWith("n".repeat(100) + "\n[… cut: file is longer]");
    expect(p).toContain("n".repeat(16_000));
    expect(p).not.toContain("n".repeat(16_001));
  });

  test("an AGENTS.md that links outside is not read: a warning names the grant, CLAUDE.md is used instead", () => {
    const base = tempDir("bunker-sp-");
    const root = join(base, "ws");
    mkdirSync(root);
    writeFileSync(join(base, "secret.md"), "SECRET");
    symlinkSync(join(base, "secret.md"), join(root, "AGENTS.md"));
    writeFileSync(join(root, "CLAUDE.md"), "inside");
    const warnings: string[] = [];
    const p = buildSystemPrompt(root, { canRead: inside(root), now, warn: (w) => warnings.push(w) });
    expect(p).not.toContain("SECRET");
    expect(p).toEndWith("Project instructions from CLAUDE.md:\ninside");
    expect(warnings).toEqual([`AGENTS.md was not read: it leads to ${join(base, "secret.md")}, and it is outside the workspace; --allow-read=${join(base, "secret.md")} would grant it.`]);
  });

  test("a denied AGENTS.md inside the workspace says a deny rule covers it; a directory named AGENTS.md is skipped", () => {
    const root = tempDir("bunker-sp-");
    writeFileSync(join(root, "AGENTS.md"), "PRIVATE");
    const warnings: string[] = [];
    const p = buildSystemPrompt(root, { canRead: (r) => !r.endsWith("AGENTS.md"), now, warn: (w) => warnings.push(w) });
    expect(p).not.toContain("PRIVATE");
    expect(warnings[0]).toContain("a deny rule covers it");
    const other = tempDir("bunker-sp-");
    mkdirSync(join(other, "AGENTS.md"));
    expect(buildSystemPrompt(other, { canRead: () => true, now })).not.toContain("Project instructions");
  });

  test("an AGENTS.md a command made a FIFO or a link to /dev/zero is named and passed over at once; CLAUDE.md is used instead", () => {
    const root = tempDir("bunker-sp-");
    writeFileSync(join(root, "CLAUDE.md"), "Prefer tabs.\n");
    expect(Bun.spawnSync(["mkfifo", join(root, "AGENTS.md")]).exitCode).toBe(0);
    const warnings: string[] = [];
    const t0 = Date.now();
    expect(buildSystemPrompt(root, { canRead: inside(root), now, warn: (w) => warnings.push(w) })).toEndWith("Project instructions from CLAUDE.md:\nPrefer tabs.");
    expect(warnings).toEqual(["AGENTS.md is a named pipe (FIFO), not a regular file; bunker did not read it; going on without it."]);
    // A link to /dev/zero leads outside the workspace: the read rules stop it before any open; granted, the reader does.
    rmSync(join(root, "AGENTS.md"));
    symlinkSync("/dev/zero", join(root, "AGENTS.md"));
    warnings.length = 0;
    expect(buildSystemPrompt(root, { canRead: () => true, now, warn: (w) => warnings.push(w) })).toEndWith("Prefer tabs.");
    expect(warnings).toEqual(["AGENTS.md is a device, not a regular file; bunker did not read it; going on without it."]);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  test("a 2 GB sparse AGENTS.md costs its first 64 KB, not 2 GB: cut, and says so", () => {
    const root = tempDir("bunker-sp-");
    writeFileSync(join(root, "AGENTS.md"), "Run make check.\n" + "n".repeat(20_000));
    truncateSync(join(root, "AGENTS.md"), 2 ** 31);
    const rss = process.memoryUsage().rss;
    const t0 = Date.now();
    const p = buildSystemPrompt(root, { canRead: inside(root), now });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
    expect(p).toContain("Project instructions from AGENTS.md:\nRun make check.\nnnn");
    expect(p).toEndWith("n".repeat(100) + "\n[… cut: file is longer]");
  });
});
