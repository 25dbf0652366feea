// Credentials a command must not see although the tree around them is shown
// (red team F8): uv's login inside ~/.local/share/uv (a toolchain tree), a
// dotfiles folder whose bin is on PATH, and variables that carry a password or
// key under names and values the first filter missed. Each test first shows the
// secret is there without bunker, then runs the attack through bunker, judge
// allowing everything (-A --allow-run), in the real sandbox.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectSandbox } from "../../src/sandbox/detect.ts";
import { runHeadless, toolResults } from "../support/cli.ts";
import { reply, toolUse } from "../support/fake-anthropic/steps.ts";
import { sandboxRuns } from "../support/sandbox-run.ts";
import { CREDENTIALS, ORDINARY } from "../support/token-values.ts";

const usable = detectSandbox().kind === "bubblewrap";
const runs = sandboxRuns();

function setup(url: string) {
  const { root, home, env: base } = runs.workspace("bunker-secrets-", url);
  for (const d of [".local/share/uv/credentials", ".local/share/uv/python", ".dotfiles/bin", ".dotfiles/zsh", ".npm-global/bin", ".npm-global/lib/node_modules/tool"]) {
    mkdirSync(join(home, d), { recursive: true });
  }
  writeFileSync(join(home, ".local/share/uv/credentials/credentials.toml"), '[[credential]]\nusername = "me"\npassword = "UVSECRET"\n');
  writeFileSync(join(home, ".dotfiles/zsh/secrets.zsh"), "export GH_TOKEN=DOTSECRET\n");
  writeFileSync(join(home, ".dotfiles/bin/hello"), "#!/bin/sh\necho dotfiles-hello\n", { mode: 0o755 });
  // An npm-style prefix: its bin links into its lib, which must still work.
  writeFileSync(join(home, ".npm-global/lib/node_modules/tool/cli.sh"), "#!/bin/sh\necho npm-tool-ok\n", { mode: 0o755 });
  symlinkSync("../lib/node_modules/tool/cli.sh", join(home, ".npm-global/bin/tool"));
  const env = {
    ...base,
    PATH: `${home}/.dotfiles/bin:${home}/.npm-global/bin:${process.env.PATH ?? "/usr/bin:/bin"}`,
    AZURE_STORAGE_CONNECTION_STRING: "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=AZSECRET==;",
    JDBC_URL: "jdbc:mysql://db:3306/app?user=app&password=JDBCSECRET",
    LDAP_BIND_PW: "LDAPSECRET",
    DOCKER_CREDS: "me:DOCKERSECRET",
    SERVICE_LINK: "jdbc:postgresql://app:PGSECRET@db/app",
    PLAIN_SETTING: "kept-value",
  };
  // The control: the files are there to read.
  expect(readFileSync(join(home, ".local/share/uv/credentials/credentials.toml"), "utf8")).toContain("UVSECRET");
  expect(readFileSync(join(home, ".dotfiles/zsh/secrets.zsh"), "utf8")).toContain("DOTSECRET");
  return { root, env };
}

const run = (command: string) => toolUse("run_bash", { command });
const SECRETS = /UVSECRET|DOTSECRET|AZSECRET|JDBCSECRET|LDAPSECRET|DOCKERSECRET|PGSECRET/;

describe.skipIf(!usable)("credentials beside what the sandbox shows", () => {
  test("uv's login, a dotfiles folder on PATH and credential variables stay out; the tools on PATH still run", async () => {
    const fake = runs.start([
      reply([
        run("cat ~/.local/share/uv/credentials/credentials.toml; ls ~/.local/share/uv"),
        run("cat ~/.dotfiles/zsh/secrets.zsh; hello; tool"),
        run("env"),
      ]),
      reply("Done."),
    ]);
    const { root, env } = setup(fake.url);
    // The control for the variables: a plain shell with the same environment prints them.
    const plain = Bun.spawnSync(["sh", "-c", "env"], { env }).stdout.toString();
    for (const s of ["AZSECRET", "JDBCSECRET", "LDAPSECRET", "DOCKERSECRET", "PGSECRET"]) expect(plain).toContain(s);
    const r = await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [uv, dot, vars] = toolResults(fake.requests[1]);
    expect(uv!.content).toContain("python"); // the tree is shown, its login is not
    expect(dot!.content).toContain("No such file or directory");
    expect(dot!.content).toContain("dotfiles-hello");
    expect(dot!.content).toContain("npm-tool-ok");
    expect(vars!.content).toContain("PLAIN_SETTING=kept-value");
    for (const x of [uv, dot, vars]) expect(x!.content).not.toMatch(SECRETS);
  });

  test("a Node version manager's global npmrc (npm config set -g) and a PATH prefix's etc/npmrc are hidden; the version's programs are still shown", async () => {
    const fake = runs.start([reply([run("cat ~/.nvm/versions/node/*/etc/npmrc ~/.npm-global/etc/npmrc; ls ~/.nvm/versions/node/v20.11.0/bin")]), reply("Done.")]);
    const { root, env } = setup(fake.url);
    const home = (env as Record<string, string>).HOME!;
    mkdirSync(join(home, ".nvm/versions/node/v20.11.0/bin"), { recursive: true });
    mkdirSync(join(home, ".nvm/versions/node/v20.11.0/etc"), { recursive: true });
    mkdirSync(join(home, ".npm-global/etc"), { recursive: true });
    writeFileSync(join(home, ".nvm/versions/node/v20.11.0/bin/node"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(join(home, ".nvm/versions/node/v20.11.0/etc/npmrc"), "//registry.npmjs.org/:_authToken=NVMSECRET\n");
    writeFileSync(join(home, ".npm-global/etc/npmrc"), "//npm.corp.example/:_password=PREFIXSECRET\n");
    // The control: the files are there to read.
    expect(Bun.spawnSync(["sh", "-c", `cat ${home}/.nvm/versions/node/*/etc/npmrc ${home}/.npm-global/etc/npmrc`]).stdout.toString()).toMatch(/NVMSECRET[\s\S]*PREFIXSECRET/);
    const r = await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const out = toolResults(fake.requests[1])[0]!.content;
    expect(out).not.toMatch(/NVMSECRET|PREFIXSECRET/);
    expect(out).toContain("node");
  });

  test("cargo's config.toml is shown without its registry token; its other settings are still there", async () => {
    const fake = runs.start([reply([run("cat ~/.cargo/config.toml; ls ~/.cargo/bin")]), reply("Done.")]);
    const { root, env: base } = setup(fake.url);
    const home = (base as Record<string, string>).HOME!;
    const env = { ...base, CARGO_HOME: join(home, ".cargo") };
    mkdirSync(join(home, ".cargo/bin"), { recursive: true });
    writeFileSync(join(home, ".cargo/bin/cargo"), "#!/bin/sh\n", { mode: 0o755 });
    const config = '[registry]\ntoken = "CARGOSECRET"\n[net]\ngit-fetch-with-cli = true\n';
    writeFileSync(join(home, ".cargo/config.toml"), config);
    // The control: the file is there to read.
    expect(readFileSync(join(home, ".cargo/config.toml"), "utf8")).toContain("CARGOSECRET");
    const r = await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const out = toolResults(fake.requests[1])[0]!.content;
    expect(out).not.toContain("CARGOSECRET");
    expect(out).toContain("# withheld by bunker");
    expect(out).toContain("git-fetch-with-cli = true");
    expect(out).toContain("cargo");
    expect(readFileSync(join(home, ".cargo/config.toml"), "utf8")).toBe(config);
  });

  test("--allow-env still passes a named variable", async () => {
    const fake = runs.start([reply([run("echo $LDAP_BIND_PW")]), reply("Done.")]);
    const { root, env } = setup(fake.url);
    await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt", "--allow-env=LDAP_BIND_PW"]);
    expect(toolResults(fake.requests[1])[0]!.content).toContain("LDAPSECRET");
  });
});

describe.skipIf(!usable)("credential variables by name and by shape", () => {
  test("`env` in a command shows none of them, and every ordinary variable; a login failure names them and the flag, never a value", async () => {
    const fake = runs.start([reply([run("env"), run("echo 'fatal: Authentication failed for https://github.com/o/r.git' >&2; exit 128")]), reply("Done.")]);
    const { root, env: base } = runs.workspace("bunker-secret-shapes-", fake.url);
    // A name is the person's (or a project's .envrc's): one that carries a terminal escape is shown escaped.
    const env = { ...base, "EVIL\x1b]0;owned\x07": CREDENTIALS.FOO!, ...CREDENTIALS, ...ORDINARY };
    // The control: a plain shell with the same environment prints every one of them.
    const plain = Bun.spawnSync(["bash", "-c", "env"], { env }).stdout.toString();
    for (const [name, value] of Object.entries({ ...CREDENTIALS, ...ORDINARY })) expect(plain).toContain(`${name}=${value}`);
    const r = await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const [shown, failed] = toolResults(fake.requests[1]);
    for (const [name, value] of Object.entries(CREDENTIALS)) {
      expect(shown!.content).not.toContain(`${name}=`);
      expect(shown!.content).not.toContain(value);
    }
    for (const [name, value] of Object.entries(ORDINARY)) expect(shown!.content).toContain(`${name}=${value}`);
    // The failed login: the names and the flag reach the model and the person; no value reaches either.
    expect(failed!.content).toContain("HF_CLONE_URL (a Hugging Face token)");
    expect(failed!.content).toContain("--allow-env=");
    expect(r.stderr).toContain("HF_CLONE_URL (a Hugging Face token)");
    expect(r.stderr).toContain("EVIL\\x1b]0;owned\\x07 (a GitHub token)");
    expect(r.stderr + failed!.content).not.toContain("\x1b]0;owned");
    for (const value of Object.values(CREDENTIALS)) {
      expect(failed!.content).not.toContain(value);
      expect(r.stdout + r.stderr).not.toContain(value);
    }
    // A variable whose name is itself a token: withheld, and its name is shown nowhere (the note says what it looked like).
    const tokenName = Object.keys(CREDENTIALS).find((n) => n.startsWith("ghp_"))!;
    expect(r.stdout + r.stderr + failed!.content).not.toContain(tokenName);
  });

  test("--allow-env passes each of them through by name", async () => {
    const fake = runs.start([reply([run("env")]), reply("Done.")]);
    const { root, env: base } = runs.workspace("bunker-secret-shapes-", fake.url);
    const names = Object.keys(CREDENTIALS);
    await runHeadless(root, { ...base, ...CREDENTIALS }, ["-p", "go", "-A", "--allow-run", "--no-prompt", `--allow-env=${names.join(",")}`]);
    const [shown] = toolResults(fake.requests[1]);
    for (const [name, value] of Object.entries(CREDENTIALS)) expect(shown!.content).toContain(`${name}=${value}`);
  });

  test("a token in the person's git config (a url's login, an extraHeader, a password line, sendemail.smtpPass) is withheld from the copy commands see; the rest of the config still works", async () => {
    const fake = runs.start([reply([run("cat ~/.gitconfig; git config --global user.name; git config --global --get-regexp 'url\\..*\\.insteadof'; git config --global alias.st")]), reply("Done.")]);
    const { root, env } = setup(fake.url);
    const config = [
      "[user]",
      "\tname = Jane Doe",
      '[url "https://x-access-token:ghp_GITCONFIGSECRET0123456789abcdefABCDEF@github.com/"]',
      "\tinsteadOf = https://github.com/",
      "[http]",
      "\textraHeader = AUTHORIZATION: bearer HEADERSECRET0123456789",
      '[credential "https://example.com"]',
      "\tpassword = PLAINSECRET",
      "[sendemail]",
      "\tsmtpServer = smtp.example.com",
      "\tsmtpPass = SMTPSECRET",
      "[alias]",
      "\tst = status --short",
      "",
    ].join("\n");
    writeFileSync(join((env as Record<string, string>).HOME!, ".gitconfig"), config);
    // The control: unconfined, the file shows every secret.
    expect(Bun.spawnSync(["cat", join((env as Record<string, string>).HOME!, ".gitconfig")]).stdout.toString()).toMatch(/GITCONFIGSECRET[\s\S]*HEADERSECRET[\s\S]*PLAINSECRET[\s\S]*SMTPSECRET/);
    const r = await runHeadless(root, env, ["-p", "go", "-A", "--allow-run", "--no-prompt"]);
    expect(r.code).toBe(0);
    const out = toolResults(fake.requests[1])[0]!.content;
    expect(out).not.toMatch(/GITCONFIGSECRET|HEADERSECRET|PLAINSECRET|SMTPSECRET/);
    expect(out).toContain("withheld by bunker");
    // What holds no credential is there as the person wrote it, and git reads it.
    expect(out).toContain("Jane Doe\n");
    expect(out).toContain("status --short");
    expect(out).toContain("smtpServer = smtp.example.com");
    // The person's own file is untouched.
    expect(readFileSync(join((env as Record<string, string>).HOME!, ".gitconfig"), "utf8")).toBe(config);
  });
});

describe.skipIf(!usable)("a token in a repository's own remote URL (red team 10's O1)", () => {
  const TOKEN = "ghp_REPOCONFIGSECRET0123456789abcdefABCD";
  const URL_WITH_TOKEN = `https://bob:${TOKEN}@github.com/bob/app.git`;
  /** A repository whose origin's URL carries a personal access token, as GitHub's docs show. */
  function tokenRepo(dir: string): void {
    for (const args of [["init", "-q", "-b", "main"], ["remote", "add", "origin", URL_WITH_TOKEN], ["-c", "user.email=p@x", "-c", "user.name=P", "commit", "-q", "--allow-empty", "-m", "one"]]) {
      Bun.spawnSync(["git", ...args], { cwd: dir });
    }
  }

  test("an unasked command, read_file and grep see the URL without its credential; git still works; a granted repository's too; the file is untouched", async () => {
    const other = runs.workspace("bunker-repo-config-other-", "http://127.0.0.1:9").root;
    tokenRepo(other);
    const fake = runs.start([
      reply([
        // Unasked: a line that only reads runs without any flag.
        run("grep url .git/config; cat .git/config | grep -c ghp_"),
        toolUse("read_file", { path: ".git/config" }),
        toolUse("grep", { pattern: "ghp_|url =", path: ".git" }),
        toolUse("read_file", { path: join(other, ".git/config") }),
      ]),
      reply("Done."),
    ]);
    const { root, env } = runs.workspace("bunker-repo-config-", fake.url);
    tokenRepo(root);
    // The control: unconfined, the file holds the token.
    expect(Bun.spawnSync(["grep", "url", join(root, ".git/config")]).stdout.toString()).toContain(TOKEN);
    const r = await runHeadless(root, env, ["-p", "go", "--no-prompt", `--allow-read=${other}`]);
    expect(r.code).toBe(0);
    const [command, read, grep, readOther] = toolResults(fake.requests[1]).map((t) => t.content);
    for (const out of [command, read, grep, readOther]) {
      expect(out).not.toContain(TOKEN);
      expect(out).toContain("url = https://github.com/bob/app.git");
    }
    expect(command).toContain("\n0");
    expect(read).toContain("; bunker withheld a credential in this file (commands are shown the same copy)");
    expect(read).toContain("; bunker withheld the credential in the URL below");
    expect(readFileSync(join(root, ".git/config"), "utf8")).toContain(URL_WITH_TOKEN);

    // Submodules' configs at any depth hold the token too after a `git clone --recursive` of a token URL (red team 12's F05).
    const fake3 = runs.start([reply([run("grep -h url .git/modules/lib/config .git/modules/lib/modules/inner/config .git/modules/libs/x/config")]), reply("Done.")]);
    for (const d of ["lib", "lib/modules/inner", "libs/x"]) {
      mkdirSync(join(root, ".git/modules", d, "objects"), { recursive: true });
      writeFileSync(join(root, ".git/modules", d, "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(root, ".git/modules", d, "config"), `[remote "origin"]\n\turl = ${URL_WITH_TOKEN}\n`);
    }
    expect((await runHeadless(root, { ...env, ANTHROPIC_BASE_URL: fake3.url }, ["-p", "go", "--no-prompt"])).code).toBe(0);
    const nested = toolResults(fake3.requests[1])[0]!.content;
    expect(nested).not.toContain(TOKEN);
    expect(nested.match(/url = https:\/\/github\.com\/bob\/app\.git/g)?.length).toBe(3);

    // With commands granted, git itself sees the copy, and works; the config stays unwritable to commands, as before.
    const fake2 = runs.start([reply([run(`git remote -v; git -C ${other} remote -v; git config remote.origin.url https://x.example/ || echo config-refused; echo b > b && git add b && git -c user.email=p@x -c user.name=P commit -qm two && echo committed`)]), reply("Done.")]);
    const r2 = await runHeadless(root, { ...env, ANTHROPIC_BASE_URL: fake2.url }, ["-p", "go", "--allow-run", "--allow-write=.git", "--no-prompt", `--allow-read=${other}`]);
    expect(r2.code).toBe(0);
    const out = toolResults(fake2.requests[1])[0]!.content;
    expect(out).not.toContain(TOKEN);
    expect(out).toContain("origin\thttps://github.com/bob/app.git (push)");
    expect(out).toContain("config-refused");
    expect(out).toContain("committed");
    expect(readFileSync(join(root, ".git/config"), "utf8")).toContain(URL_WITH_TOKEN);
  });
});
