// The settings writer: an "always allow" answer added to a settings file's "allow" list, as the rules file
// reads it, without losing anything else in the file.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { emptyGrants } from "../../../src/perms/policy.ts";
import { parseRulesFile } from "../../../src/perms/rules-file.ts";
import { addAllowRules, runRuleFor } from "../../../src/perms/settings-writer.ts";
import { tempDir } from "../../support/context.ts";

describe("addAllowRules", () => {
  test("a missing file (and folder) is made owner-only, with the rules the rules file then reads as run patterns", () => {
    const dir = tempDir("bunker-settings-writer-");
    const file = join(dir, "config", "bunker", "settings.json");
    const rules = ["npm run lint", "git add"].map(runRuleFor);
    expect(rules).toEqual(["run:npm run lint *", "run:git add *"]);
    expect(addAllowRules(file, rules)).toEqual({ saved: true, file, added: rules });
    expect(readFileSync(file, "utf8")).toBe('{\n  "allow": [\n    "run:npm run lint *",\n    "run:git add *"\n  ]\n}\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const grants = emptyGrants();
    parseRulesFile(file, readFileSync(file, "utf8"), dir, grants, "user", { HOME: dir });
    expect(grants.allow.run.patterns).toEqual(["npm run lint *", "git add *"]);
  });

  test("the file's other settings and entries stay, in their order; a rule already there is not added twice", () => {
    const file = join(tempDir("bunker-settings-writer-"), "settings.json");
    writeFileSync(file, '{"thinking": "low", "allow": ["write:src/**", "run:git add *"], "deny": ["read:.env"]}');
    expect(addAllowRules(file, ["run:git add *", "run:touch *", "run:touch *"])).toMatchObject({ saved: true, added: ["run:touch *"] });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ thinking: "low", allow: ["write:src/**", "run:git add *", "run:touch *"], deny: ["read:.env"] });
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toEqual(["thinking", "allow", "deny"]);
    expect(addAllowRules(file, ["run:touch *"])).toMatchObject({ saved: true, added: [] });
  });

  test("a file that does not parse, or whose allow is not a list, is left exactly as it was, with the reason", () => {
    const file = join(tempDir("bunker-settings-writer-"), "settings.json");
    writeFileSync(file, '{"allow": ["run:ls",]}');
    const outcome = addAllowRules(file, ["run:touch *"]);
    expect(outcome).toMatchObject({ saved: false, why: expect.stringContaining("not valid JSON (line 1, column 21: trailing comma") });
    expect(readFileSync(file, "utf8")).toBe('{"allow": ["run:ls",]}');
    writeFileSync(file, '{"allow": "run:ls"}');
    expect(addAllowRules(file, ["run:touch *"])).toMatchObject({ saved: false, why: 'its "allow" is not a list' });
    expect(readFileSync(file, "utf8")).toBe('{"allow": "run:ls"}');
  });

  test("a settings file that is a link (kept in a dotfiles repository) stays a link; the file it leads to gets the rule", () => {
    const dir = tempDir("bunker-settings-writer-");
    mkdirSync(join(dir, "dotfiles"));
    const real = join(dir, "dotfiles", "bunker.json");
    writeFileSync(real, "{}\n");
    const link = join(dir, "settings.json");
    symlinkSync(real, link);
    expect(addAllowRules(link, ["run:touch *"])).toMatchObject({ saved: true });
    expect(statSync(link).isFile() && existsSync(real)).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8"))).toEqual({ allow: ["run:touch *"] });
  });
});

describe("rules saved for one workspace (reviewer's R11-14)", () => {
  test("go under \"workspaces\" by the workspace's path; only bunker started there reads them, and a workspace's own file cannot hold them", () => {
    const dir = tempDir("bunker-settings-writer-");
    const here = join(dir, "here");
    const other = join(dir, "other");
    mkdirSync(here);
    mkdirSync(other);
    const file = join(dir, "settings.json");
    writeFileSync(file, '{"allow": ["run:make *"]}');
    expect(addAllowRules(file, ["run:rm -rf build"], here)).toMatchObject({ saved: true, added: ["run:rm -rf build"] });
    expect(addAllowRules(file, ["run:rm -rf build", "run:mv a b"], here)).toMatchObject({ saved: true, added: ["run:mv a b"] });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ allow: ["run:make *"], workspaces: { [here]: { allow: ["run:rm -rf build", "run:mv a b"] } } });
    const read = (root: string, scope: "user" | "workspace" = "user") => {
      const grants = emptyGrants();
      const r = parseRulesFile(file, readFileSync(file, "utf8"), root, grants, scope, { HOME: dir });
      return { patterns: grants.allow.run.patterns, ignored: r.ignored };
    };
    expect(read(here).patterns).toEqual(["make *", "rm -rf build", "mv a b"]);
    expect(read(other).patterns).toEqual(["make *"]);
    const inRepo = read(here, "workspace");
    expect(inRepo.patterns).toEqual([]);
    expect(inRepo.ignored.some((l) => l.includes('ignored "workspaces"'))).toBe(true);
  });
});
