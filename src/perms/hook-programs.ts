// The programs a hook or a hook tool's config runs by name, and what each of
// them loads as code (red team 13's F09 and F05). `npx lint-staged` in husky's
// pre-commit runs node_modules/.bin/lint-staged, a link to the package's bin
// file: writable, that file runs at the next commit as the hook does (a venv's
// bin/ is read-only to commands for the same reason: venv.ts). And a program a
// hook runs (eslint, prettier, pylint…) loads its config file as code: a
// command's edit to eslint.config.js runs at the next commit too. Read from the
// text alone, as named-scripts.ts reads paths: each command's first word, and
// the word a package runner runs (`npx`, `pnpm exec`, `yarn`, `bunx`, `npm exec`).

/** What separates one command from the next (shell separators, a YAML key's colon, a JSON string's quote). */
const STARTERS = /(?:&&|\|\||[;|&(){}"'`\n,[\]]|(?<!:):(?!:)|\bthen\b|\bdo\b|\belse\b)/;
/** A program's name as a package's bin has it (no path, no expansion). */
const BIN_NAME = /^[A-Za-z0-9_][\w.-]*$/;
/** Words that run the next one as the command. */
const WRAPPERS = new Set(["env", "exec", "command", "time", "nohup", "nice"]);
/** Runners that run a package's bin by name: the word after their options. */
const RUNNERS = new Set(["npx", "bunx", "pnpx"]);
/** Options of npx / npm exec / pnpm / yarn that take the next word as their value. */
const VALUED = new Set(["-p", "--package", "-c", "--call", "--prefix", "-C", "--dir", "--cwd", "--filter", "-F", "-w", "--workspace"]);
/** pnpm's, yarn's and bun's own commands that are not a bin they run (`yarn install`, `pnpm test`'s script is package-hooks.ts's). */
const MANAGER_OWN = new Set(["install", "i", "add", "remove", "rm", "update", "up", "upgrade", "ci", "test", "t", "run-script", "audit", "why", "list", "ls", "link", "unlink", "publish", "pack", "init", "create", "config", "cache", "info", "outdated", "prune", "dedupe", "store", "setup", "import", "rebuild", "patch", "version", "help", "workspace", "workspaces", "build", "pm"]);

/** At most this many program names are taken from one file. */
const MAX_PROGRAMS = 100;

/**
 * The programs `text` runs by name, as written: each command's first word (husky and lint-staged put
 * node_modules/.bin first on PATH, so a bare `lint-staged` or `eslint` is the package's), and the word `npx`, `bunx`,
 * `npm exec`/`npm x`, `pnpm exec`/`pnpm dlx`/`pnpm NAME`, `yarn NAME`/`yarn exec`/`yarn run`, `bun x`/`bun run` runs.
 */
export function programsNamed(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    if (/^\s*(#|\/\/)/.test(line)) continue;
    for (const piece of line.split(STARTERS)) {
      const words = piece.trim().split(/\s+/).filter(Boolean);
      let i = 0;
      while (i < words.length && (/^\w+=/.test(words[i]!) || WRAPPERS.has(words[i]!))) i++;
      const first = words[i];
      if (first === undefined) continue;
      const tool = first.slice(first.lastIndexOf("/") + 1);
      // The word after the options from j on.
      const after = (j: number): string | undefined => {
        while (j < words.length && words[j]!.startsWith("-")) {
          if (words[j] === "-c" || words[j] === "--call") return undefined;
          j += VALUED.has(words[j]!) ? 2 : 1;
        }
        return words[j];
      };
      const at = (w: string | undefined) => words.indexOf(w ?? "\0", i + 1);
      let name: string | undefined = tool;
      if (RUNNERS.has(tool)) name = after(i + 1);
      else if (tool === "npm") {
        const verb = after(i + 1);
        name = verb === "exec" || verb === "x" ? after(at(verb) + 1) : undefined;
      } else if (tool === "pnpm" || tool === "yarn" || tool === "bun") {
        const verb = after(i + 1);
        if (verb === "exec" || verb === "dlx" || verb === "x" || verb === "run") name = after(at(verb) + 1);
        else name = verb !== undefined && !MANAGER_OWN.has(verb) && tool !== "bun" ? verb : undefined;
      }
      // A pinned version (`npx lint-staged@15`) runs the same bin.
      name = name?.replace(/(?<=.)@[^/]*$/, "");
      if (name && BIN_NAME.test(name)) out.add(name);
      if (out.size >= MAX_PROGRAMS) return [...out];
    }
  }
  return [...out];
}

/**
 * What each program a hook may run loads as code from the folder it runs in and those above it (its config search
 * names, from each tool's documentation), by the program's bin name. Data-only configs (black's, ruff's TOML) are not
 * here. Not pyproject.toml, setup.cfg or tox.ini (pylint's, flake8's, mypy's sections there): they hold the project's
 * other settings too, and a read-only pyproject.toml would stop every `uv add` in the sandbox.
 */
const ESLINT = ["eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", "eslint.config.mts", "eslint.config.cts", ".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", ".eslintrc.yaml", ".eslintrc.yml"];
const PRETTIER = ["prettier.config.js", "prettier.config.mjs", "prettier.config.cjs", "prettier.config.ts", "prettier.config.mts", "prettier.config.cts", ".prettierrc", ".prettierrc.js", ".prettierrc.mjs", ".prettierrc.cjs", ".prettierrc.ts", ".prettierrc.mts", ".prettierrc.cts", ".prettierrc.json", ".prettierrc.json5", ".prettierrc.yaml", ".prettierrc.yml", ".prettierrc.toml"];
const STYLELINT = ["stylelint.config.js", "stylelint.config.mjs", "stylelint.config.cjs", "stylelint.config.ts", ".stylelintrc", ".stylelintrc.js", ".stylelintrc.mjs", ".stylelintrc.cjs", ".stylelintrc.json", ".stylelintrc.yaml", ".stylelintrc.yml"];
const MARKDOWNLINT = [".markdownlint-cli2.cjs", ".markdownlint-cli2.mjs", ".markdownlint-cli2.jsonc", ".markdownlint-cli2.yaml", ".markdownlint.cjs", ".markdownlint.mjs"];
export const PROGRAM_CONFIGS: Readonly<Record<string, readonly string[]>> = {
  // eslint's flat config is code; an .eslintrc's `parser`/`plugins` may name a local file it loads.
  eslint: ESLINT,
  eslint_d: ESLINT,
  // prettier's JS configs are code; any of them can name a local plugin file it loads.
  prettier: PRETTIER,
  stylelint: STYLELINT,
  "markdownlint-cli2": MARKDOWNLINT,
  // pylint runs its config's init-hook as Python at start (red team 13's F05b); mypy imports its `plugins` files.
  pylint: ["pylintrc", ".pylintrc", "pylintrc.toml", ".pylintrc.toml"],
  mypy: ["mypy.ini", ".mypy.ini"],
  // flake8's [flake8:local-plugins] paths are imported; rubocop's `require:` loads Ruby; golangci-lint's plugins are .so files.
  flake8: [".flake8"],
  rubocop: [".rubocop.yml"],
  "golangci-lint": [".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json"],
};

/** The config names `program` loads as code (PROGRAM_CONFIGS), or none. */
export function programConfigs(program: string): readonly string[] {
  return Object.hasOwn(PROGRAM_CONFIGS, program) ? PROGRAM_CONFIGS[program]! : [];
}

/** Why a program in node_modules/.bin a hook runs by name (and the file and package it leads to) is read-only to commands. */
export function hookBinWhy(program: string, by: string): string {
  return `is the program ${program} that ${by} runs from node_modules (read-only to commands, as a virtual environment's bin/ is: to update it, run npm install yourself)`;
}

/** The package folder holding a file inside node_modules (`…/node_modules/NAME` or `…/node_modules/@scope/NAME`), or null. */
export function packageFolderOf(file: string): string | null {
  const m = /^(.*\/node_modules\/(?:@[^/]+\/)?[^/@.][^/]*)\/./.exec(file);
  return m ? m[1]! : null;
}

/** A package.json's text as the object its tools read (a byte-order mark stripped, as they do), or null when it is no JSON object. */
export function manifestObject(text: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return null;
  }
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/**
 * The commands in a package.json's hook keys (`keys`: lint-staged's tasks, husky v4's and simple-git-hooks' hooks),
 * one a line, or null: what its hook tool runs at the next commit, read as a hook's text is.
 */
export function hookKeyCommands(text: string | null, keys: readonly string[]): string | null {
  if (text === null || !keys.some((k) => text.includes(`"${k}"`))) return null;
  const parsed = manifestObject(text);
  if (parsed === null) return null;
  const lines: string[] = [];
  const collect = (v: unknown, depth: number): void => {
    if (typeof v === "string") lines.push(v);
    else if (v !== null && typeof v === "object" && depth < 8 && lines.length < 1_000) for (const x of Object.values(v)) collect(x, depth + 1);
  };
  for (const key of keys) if (Object.hasOwn(parsed, key)) collect(parsed[key], 0);
  return lines.length > 0 ? lines.join("\n") : null;
}
