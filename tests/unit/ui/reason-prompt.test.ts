// The reason asked after a "No": typed and sent with Enter; closed by Escape,
// the words typed are replaced by the caller's line, never left on screen.
import { expect, test } from "bun:test";
import { reasonPrompt } from "../../../src/ui/reason-prompt.ts";
import { KEY, Terminal } from "../../support/prompt-terminal.ts";

const ask = (term: Terminal, signal?: AbortSignal) =>
  reasonPrompt({ message: "What instead?", placeholder: "optional", cancelled: "Refused.", input: term.input, output: term.output, ...(signal ? { signal } : {}) });

/** The prompt's last frame: from the last time its question was drawn. */
const closed = (term: Terminal) => term.screen.slice(term.screen.lastIndexOf("What instead?"));

test("Enter sends what was typed, and the closed prompt shows it", async () => {
  const term = new Terminal();
  const answer = ask(term);
  await term.waitFor("What instead?");
  await term.press("use tabs", KEY.enter);
  expect(await answer).toBe("use tabs");
  expect(closed(term)).toBe("What instead?\n│  use tabs\n");
});

test("Escape with words typed: they are cleared and the line says they were not sent", async () => {
  const term = new Terminal();
  const answer = ask(term);
  await term.waitFor("What instead?");
  await term.press("half a thought", KEY.escape);
  expect(typeof (await answer)).toBe("symbol");
  expect(closed(term)).toBe("What instead?\n│  Refused. What you typed was not sent.\n│\n");
});

test("Escape with nothing typed says only the caller's line; withdrawn, it says it was not answered", async () => {
  const term = new Terminal();
  const answer = ask(term);
  await term.waitFor("What instead?");
  await term.press(KEY.escape);
  await answer;
  expect(closed(term)).toBe("What instead?\n│  Refused.\n│\n");

  const other = new Terminal();
  const stop = new AbortController();
  const withdrawn = ask(other, stop.signal);
  await other.waitFor("What instead?");
  await other.press("some words");
  stop.abort();
  await withdrawn;
  expect(closed(other)).toBe("What instead?\n│  (not answered)\n│\n");
});
