// A granted home shows its non-dot entries (home-dots.ts): the masks the sandbox gets, and the policy's answer for the
// file tools. The real sandbox runs it in tests/e2e/home-grant.test.ts.
import { expect, test } from "bun:test";
import { homeDotEntry, homeDotMasks, unnamedHomeDotEntry } from "../../../src/sandbox/home-dots.ts";
import { emptyGrants, Policy } from "../../../src/perms/policy.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../support/context.ts";

const TREE: Record<string, string[]> = {
  "/h": [".claude.json", ".config", ".local", ".bun", ".gitconfig", ".link", "notes.txt", "proj"],
  "/h/.config": ["git", "solana", "foo"],
  "/h/.local": ["share", "bin"],
  "/h/.local/share": ["uv", "atuin"],
};
const fs = {
  kind: (p: string) => (p.endsWith(".link") ? "link" : TREE[p] || !/\.(json|txt)$|gitconfig$/.test(p) ? "dir" : "file") as "dir" | "file" | "link",
  list: (p: string) => TREE[p] ?? [],
};

test("each dot-entry is masked unless shown by name; one holding a shown path is entered; links and non-dot entries are left", () => {
  const shown = ["/h/.bun", "/h/.gitconfig", "/h/.config/git", "/h/.local/share/uv", "/h/.config/foo", "/h/proj"];
  expect(homeDotMasks("/h", ["/h"], shown, fs)).toEqual([
    { path: "/h/.claude.json", dir: false },
    { path: "/h/.config/solana", dir: true },
    { path: "/h/.local/share/atuin", dir: true },
    { path: "/h/.local/bin", dir: true },
  ]);
  // A grant of a folder holding the home: the same; a grant elsewhere, or none: nothing.
  expect(homeDotMasks("/h", ["/"], [], fs).map((m) => m.path)).toEqual(["/h/.claude.json", "/h/.config", "/h/.local", "/h/.bun", "/h/.gitconfig"]);
  expect(homeDotMasks("/h", ["/h/proj", "/data"], [], fs)).toEqual([]);
  expect(homeDotMasks("/", ["/"], [], fs)).toEqual([]);
});

test("a snap's folders are homes of their own: their dot-entries are masked too (red team 8 F1)", () => {
  const tree: Record<string, string[]> = { "/h": ["snap", "notes.txt"], "/h/snap": ["firefox"], "/h/snap/firefox": ["common", "4215", "current"], "/h/snap/firefox/common": [".mozilla", "Downloads"], "/h/snap/firefox/4215": [".config"] };
  const snapFs = { kind: (p: string) => (p.endsWith("current") ? "link" : p.endsWith(".txt") ? "file" : "dir") as "dir" | "file" | "link", list: (p: string) => tree[p] ?? [] };
  expect(homeDotMasks("/h", ["/h"], [], snapFs)).toEqual([{ path: "/h/snap/firefox/common/.mozilla", dir: true }, { path: "/h/snap/firefox/4215/.config", dir: true }]);
  expect(homeDotEntry("/h", "/h/snap/firefox/common/.mozilla/firefox/p/logins.json")).toBe("/h/snap/firefox/common/.mozilla");
  expect(homeDotEntry("/h", "/h/snap/firefox/common/Downloads/a.pdf")).toBeNull();
});

test("the file tools: a dot-entry of the home is covered only by a grant inside it", () => {
  expect(homeDotEntry("/h", "/h/.config/x/y")).toBe("/h/.config");
  expect(homeDotEntry("/h", "/h/notes.txt")).toBeNull();
  expect(homeDotEntry("/h", "/h")).toBeNull();
  expect(unnamedHomeDotEntry("/h", "/h/.config/solana/id.json", { paths: ["/h"], globs: [] })).toBe("/h/.config");
  expect(unnamedHomeDotEntry("/h", "/h/.config/solana/id.json", { paths: ["/h", "/h/.config/solana"], globs: [] })).toBeNull();
  expect(unnamedHomeDotEntry("/h", "/h/.config/other", { paths: ["/h", "/h/.config/solana"], globs: [] })).toBe("/h/.config");
  expect(unnamedHomeDotEntry("/h", "/h/.config/a", { paths: [], globs: ["/h/**"] })).toBe("/h/.config");
  expect(unnamedHomeDotEntry("/h", "/h/.config/a", { paths: [], globs: ["/h/.config/**"] })).toBeNull();
});

test("the policy asks for a dot-entry under --allow-read=~ and names the flag for that file; a non-dot file is allowed", () => {
  const home = tempDir("bunker-home-dots-");
  const root = join(home, "proj");
  mkdirSync(root);
  writeFileSync(join(home, ".claude.json"), "{}");
  writeFileSync(join(home, "notes.txt"), "n");
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    const g = emptyGrants();
    g.allow.read.paths = [home];
    const policy = new Policy(root, g);
    expect(policy.decide("read", join(home, "notes.txt")).verdict).toBe("allow");
    const d = policy.decide("read", join(home, ".claude.json"));
    expect(d.verdict).toBe("ask");
    expect(d.reason).toContain("a dot-entry of your home folder");
    expect(d.hint).toBe(`--allow-read=${join(home, ".claude.json")}`);
    g.allow.read.paths = [home, join(home, ".claude.json")];
    expect(new Policy(root, g).decide("read", join(home, ".claude.json")).verdict).toBe("allow");
  } finally {
    process.env.HOME = saved;
  }
});
