// bunker -p in process: the answer on stdout, and an exit code a script can
// trust (0 done, 1 an error or work cut short, 141 when stdout's reader went
// away), with stdin taken as a terminal so nothing is read from it.
import { beforeEach, describe, expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../src/config.ts";
import { isNullOrClosed, pipedInputCheck, runHeadless, type HeadlessIO } from "../../src/headless.ts";
import { endToEnd } from "../support/cli.ts";
import { tempDir } from "../support/context.ts";
import { apiError, reply, toolUse } from "../support/fake-anthropic.ts";

const e2e = endToEnd();

/** What runHeadless wrote to stdout and stderr; `stdoutError` makes every stdout write fail with that code. */
let out: string[];
let err: string[];
let stdoutError: string | undefined;
let io: HeadlessIO;

beforeEach(() => {
  out = [];
  err = [];
  stdoutError = undefined;
  io = {
    stdinIsTerminal: true,
    stdout: {
      write(chunk: string, cb?: (e?: Error | null) => void) {
        if (stdoutError) queueMicrotask(() => cb?.(Object.assign(new Error(`write ${stdoutError}`), { code: stdoutError })));
        else {
          out.push(String(chunk));
          queueMicrotask(() => cb?.(null));
        }
        return true;
      },
    },
    stderr: { write: (chunk: string) => err.push(String(chunk)) },
  };
});

function config(...flags: string[]) {
  const root = tempDir("bunker-headless-");
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: e2e.fake.url, XDG_STATE_HOME: tempDir("bunker-headless-state-"), BUNKER_RETRY_BASE_MS: "1" };
  return parseConfig(["-C", root, "--no-prompt", ...flags, "-p", "what is it?"], env, false).config!;
}

describe("runHeadless", () => {
  test("the answer goes to stdout with a newline; exit 0", async () => {
    e2e.serve([reply("It is 42.")]);
    expect(await runHeadless(config(), io)).toBe(0);
    expect(out.join("")).toBe("It is 42.\n");
  });

  test("--output-format json: one result object naming the end, the answer and the session", async () => {
    e2e.serve([reply("Done.")]);
    expect(await runHeadless(config("--output-format", "json"), io)).toBe(0);
    const result = JSON.parse(out.join(""));
    expect(result).toMatchObject({ type: "result", is_error: false, result: "Done." });
    expect(result.session_id).toMatch(/^[0-9a-z]{10}$/);
  });

  test("an API error is exit 1, said on stderr, nothing on stdout", async () => {
    e2e.serve([apiError(400)]);
    expect(await runHeadless(config(), io)).toBe(1);
    expect(out.join("")).toBe("");
    expect(err.join("")).toContain("400");
  });

  test("work cut short by --max-turns is exit 1, not a quiet success", async () => {
    e2e.serve([reply([toolUse("list_files", {})]), reply([toolUse("list_files", {})]), reply("never")]);
    expect(await runHeadless(config("--max-turns", "1"), io)).toBe(1);
  });

  test("stdout's reader gone (EPIPE) is exit 141, as if killed by SIGPIPE; another write error is exit 1, said on stderr", async () => {
    e2e.serve([reply("unread")]);
    stdoutError = "EPIPE";
    expect(await runHeadless(config(), io)).toBe(141);
    e2e.serve([reply("unwritten")]);
    stdoutError = "ENOSPC";
    expect(await runHeadless(config(), io)).toBe(1);
    expect(err.join("")).toContain("bunker: could not write the answer to stdout: write ENOSPC");
  });
});

test("stdin that is /dev/null or closed is known empty without reading it; a file, another device or a pipe is read", () => {
  const dir = tempDir();
  const file = join(dir, "input.txt");
  writeFileSync(file, "context\n");
  const open = (path: string) => openSync(path, "r");
  const fds = { devNull: open("/dev/null"), devZero: open("/dev/zero"), file: open(file) };
  try {
    expect(isNullOrClosed(fds.devNull)).toBe(true);
    expect(isNullOrClosed(fds.devZero)).toBe(false);
    expect(isNullOrClosed(fds.file)).toBe(false);
  } finally {
    for (const fd of Object.values(fds)) closeSync(fd);
  }
  expect(isNullOrClosed(fds.file)).toBe(true); // closed now
});

describe("piped input against the context window", () => {
  test("small: nothing to say; over half the limit: a warning with its size and share; over it: refused, saying what to do; only bytes are counted", () => {
    expect(pipedInputCheck(100_000, 200_000)).toBeNull();
    expect(pipedInputCheck(400_000, 200_000)).toBeNull();
    const warn = pipedInputCheck(600_000, 200_000);
    expect(warn && "warn" in warn && warn.warn).toBe(
      "bunker: stdin holds 600 KB, 75% of 800 KB, the most the model's context window of 200,000 tokens can hold at 4 bytes a token; it is sent whole, but the turn has little room left and the API may refuse it as too long. Piping in less, or naming the file for the model to read, leaves room.\n",
    );
    // The read stops at the limit: what was read past it is no measure of anything, so no figure is made of it.
    const refuse = pipedInputCheck(4_000_000, 200_000);
    expect(refuse && "refuse" in refuse && refuse.refuse).toStartWith(
      "bunker: stdin holds more than 800 KB, the most the model's context window of 200,000 tokens can hold at 4 bytes a token (bunker stopped reading there): the API would refuse it, so nothing was sent.",
    );
    // No token count is claimed: bunker counts bytes, only the API counts tokens.
    for (const said of [warn, refuse]) expect(JSON.stringify(said)).not.toMatch(/[\d,]+ tokens\)|about [\d,]+ tokens|over [\d,]+ tokens/);
    // A smaller window is judged by its own size.
    expect(pipedInputCheck(600_000, 100_000)).toHaveProperty("refuse");
  });
});
