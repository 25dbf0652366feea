// Tab completion in the input line (src/ui/completion.ts): commands after `/`, workspace paths after `@`.
import { expect, test } from "bun:test";
import { applyTab, commonStart, completionAt, matchingCommands, type CompletionSources } from "../../../src/ui/completion.ts";

const tree: Record<string, { name: string; dir: boolean }[]> = {
  "": [{ name: "calc.js", dir: false }, { name: "calc.test.js", dir: false }, { name: "src", dir: true }, { name: ".env", dir: false }],
  "src/": [{ name: "app.ts", dir: false }, { name: "lib", dir: true }],
};
const src: CompletionSources = {
  commands: () => [{ name: "/help", help: "this list" }, { name: "/clear", help: "forget" }, { name: "/compact", help: "shorten" }, { name: "/cost", help: "tokens" }],
  list: (dir) => tree[dir] ?? null,
};
const tab = (text: string, cursor = text.length) => {
  const c = completionAt(text, cursor, src);
  return c ? applyTab(text, cursor, c) : null;
};

test("a command: one match is completed with a space after it; several complete what they share and are listed", () => {
  expect(tab("/he")).toEqual({ text: "/help ", cursor: 6, list: [] });
  expect(tab("/co")).toEqual({ text: "/co", cursor: 3, list: ["/compact", "/cost"] });
  expect(tab("/com")).toEqual({ text: "/compact ", cursor: 9, list: [] });
  expect(tab("/c")).toEqual({ text: "/c", cursor: 2, list: ["/clear", "/compact", "/cost"] });
  // Only at the start of the line: a slash inside a sentence is text.
  expect(tab("see /he")).toBeNull();
});

test("the commands that match are listed as the name is typed, and only then", () => {
  expect(matchingCommands("/c", 2, src).map((c) => c.name)).toEqual(["/clear", "/compact", "/cost"]);
  expect(matchingCommands("/", 1, src)).toHaveLength(4);
  expect(matchingCommands("/help me", 8, src)).toEqual([]);
  expect(matchingCommands("hi", 2, src)).toEqual([]);
});

test("a path after @: a file completes with a space, a folder with its slash (and goes on from there), several share their start", () => {
  expect(tab("look at @ca")).toEqual({ text: "look at @calc.", cursor: 14, list: ["@calc.js", "@calc.test.js"] });
  expect(tab("look at @calc.t")).toEqual({ text: "look at @calc.test.js ", cursor: 22, list: [] });
  expect(tab("@s")).toEqual({ text: "@src/", cursor: 5, list: [] });
  expect(tab("@src/a")).toEqual({ text: "@src/app.ts ", cursor: 12, list: [] });
  expect(tab("@src/")).toEqual({ text: "@src/", cursor: 5, list: ["@src/app.ts", "@src/lib/"] });
  // In the middle of the line: what follows stays, and no second space is added.
  expect(tab("read @src/a and fix", 11)).toEqual({ text: "read @src/app.ts and fix", cursor: 16, list: [] });
  // Hidden entries only when their dot is typed; a folder the listing refuses offers nothing.
  expect(tab("@")!.list).toEqual(["@calc.js", "@calc.test.js", "@src/"]);
  expect(tab("@.e")).toEqual({ text: "@.env ", cursor: 6, list: [] });
  expect(tab("@nowhere/x")).toEqual({ text: "@nowhere/x", cursor: 10, list: [] });
  // An e-mail address is not a mention.
  expect(tab("mail me@ca")).toBeNull();
});

test("commonStart", () => {
  expect(commonStart(["@calc.js", "@calc.test.js"])).toBe("@calc.");
  expect(commonStart([])).toBe("");
});
