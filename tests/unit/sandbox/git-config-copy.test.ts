// A git config shown to commands loses the lines that hold a credential and
// keeps every other line as it was.
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { credentialFreeCopies, WITHHELD_LINE, WITHHELD_SECTION, WITHHELD_TOML_LINE, withholdCredentials } from "../../../src/sandbox/git-config-copy.ts";
import { tempDir } from "../../support/context.ts";

const withheld: [string, string, string][] = [
  ["a token as a url's login", '[url "https://x-access-token:ghp_0123456789abcdefABCDEF0123456789abcd@github.com/"]', WITHHELD_SECTION],
  ["a bare token as a url's user name", '[url "https://ghp_0123456789abcdefABCDEF0123456789abcd@github.com/"]', WITHHELD_SECTION],
  ["an Authorization header", "\textraHeader = AUTHORIZATION: bearer abcdef0123456789abcdef", WITHHELD_LINE],
  ["an extraHeader of any shape", "\textraheader = X-Custom: whatever", WITHHELD_LINE],
  ["a password line", "\tpassword = hunter2", WITHHELD_LINE],
  ["a token line", "\ttoken = abc", WITHHELD_LINE],
  ["a vendor token under any key", "\tfoo = glpat-0123456789abcdefABCD", WITHHELD_LINE],
  // git send-email's documented key, and others whose last part ends in a credential's name.
  ["sendemail.smtpPass", "\tsmtpPass = abcd efgh ijkl mnop", WITHHELD_LINE],
  ["a key ending in passphrase", "\tkeyPassphrase = correct horse", WITHHELD_LINE],
  ["a key ending in token (hub.oauthtoken)", "\toauthtoken = 0123456789abcdef", WITHHELD_LINE],
  ["a key ending in secret", "\tclientSecret = abc", WITHHELD_LINE],
];
const kept = [
  "[user]",
  "\tname = Jane Doe",
  "\temail = jane@example.com",
  "\tsigningkey = 3AA5C34371567BD2",
  '[url "git@github.com:"]',
  "\tinsteadOf = https://github.com/",
  "[core]",
  "\teditor = vim",
  "\tpager = less -R",
  "[alias]",
  "\tlg = log --oneline --graph",
  '[includeIf "gitdir:~/work/"]',
  "\tpath = ~/.gitconfig-work",
  "\tpasswordless = true",
  "[sendemail]",
  "\tsmtpServer = smtp.gmail.com",
  "\tsmtpUser = jane@example.com",
  "\tsmtpServerPort = 587",
];

test.each(withheld)("withheld: %s", (_what, line, replacement) => {
  const { text, withheld: n } = withholdCredentials(`[core]\n\teditor = vim\n${line}\n\tinsteadOf = x\n`);
  expect(n).toBe(1);
  expect(text).toBe(`[core]\n\teditor = vim\n${replacement}\n\tinsteadOf = x\n`);
});

test("kept as written: names, emails, signing key ids, plain urls, aliases, includes", () => {
  const config = `${kept.join("\n")}\n`;
  expect(withholdCredentials(config)).toEqual({ text: config, withheld: 0 });
});

test("a value continued over lines (backslash) is withheld whole", () => {
  const { text } = withholdCredentials("[http]\n\textraHeader = AUTHORIZATION: \\\n bearer abcdef0123456789abcdef\n[user]\n\tname = x\n");
  expect(text).toBe(`[http]\n${WITHHELD_LINE}\n${WITHHELD_LINE}\n[user]\n\tname = x\n`);
});

test("copies: only for a file holding a credential, private, made again when the file changes; the file itself untouched", () => {
  const dir = tempDir("bunker-gitcopy-");
  const clean = join(dir, "clean");
  const secret = join(dir, "secret");
  writeFileSync(clean, "[user]\n\tname = a\n");
  writeFileSync(secret, "[http]\n\textraHeader = AUTHORIZATION: bearer abcdef0123456789abcdef\n");
  const first = credentialFreeCopies([clean, secret, join(dir, "missing")]);
  expect(Object.keys(first)).toEqual([secret]);
  expect(readFileSync(first[secret]!, "utf8")).toBe(`[http]\n${WITHHELD_LINE}\n`);
  expect(readFileSync(secret, "utf8")).toContain("bearer");
  writeFileSync(clean, "[user]\n\tname = a\n\tpassword = b\n");
  const second = credentialFreeCopies([clean, secret]);
  expect(Object.keys(second).sort()).toEqual([clean, secret].sort());
  expect(readFileSync(second[clean]!, "utf8")).toBe(`[user]\n\tname = a\n${WITHHELD_LINE}\n`);
});

test("a TOML config (cargo's config.toml) loses its token line to a TOML comment; its other settings stay", () => {
  const dir = tempDir("bunker-cargocopy-");
  const file = join(dir, "config.toml");
  writeFileSync(file, '[registry]\ntoken = "cio_0123456789abcdef"\n[registries.corp]\nindex = "sparse+https://corp.example/index/"\ntoken = "x"\n[build]\nrustflags = ["-C", "target-cpu=native"]\n');
  const copy = credentialFreeCopies([file])[file]!;
  expect(readFileSync(copy, "utf8")).toBe(`[registry]\n${WITHHELD_TOML_LINE}\n[registries.corp]\nindex = "sparse+https://corp.example/index/"\n${WITHHELD_TOML_LINE}\n[build]\nrustflags = ["-C", "target-cpu=native"]\n`);
});

test("a config that cannot be checked (over 1 MB) is shown as a copy holding none of it: it fails closed", () => {
  const dir = tempDir("bunker-gitcopy-big-");
  const big = join(dir, "config");
  writeFileSync(big, `[user]\n\tname = a\n${"#".repeat(1 << 20)}\n[http]\n\textraHeader = AUTHORIZATION: bearer abcdef0123456789abcdef\n`);
  const copy = credentialFreeCopies([big])[big]!;
  expect(readFileSync(copy, "utf8")).toBe("; withheld by bunker (too large or not a file, so not checked for credentials)\n");
});

test("a URL whose credential is all that is secret keeps its URL less the credential, with a line saying so; a user name alone is no credential", () => {
  const { text, withheld: n } = withholdCredentials('[remote "origin"]\n\turl = https://bob:ghp_0123456789abcdefABCDEF0123456789abcd@github.com/bob/app.git\n\tpushurl = https://bob@github.com/bob/app.git\n');
  expect(n).toBe(1);
  expect(text).toBe('[remote "origin"]\n; bunker withheld the credential in the URL below\n\turl = https://github.com/bob/app.git\n\tpushurl = https://bob@github.com/bob/app.git\n');
  // In TOML, the same with TOML's comment.
  expect(withholdCredentials("index = \"https://u:glpat-0123456789abcdefABCD@gitlab.com/x\"\n", WITHHELD_TOML_LINE).text).toBe('# bunker withheld the credential in the URL below\nindex = "https://gitlab.com/x"\n');
});
