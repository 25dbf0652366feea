// Images reach the model: read_file on a PNG, JPEG, GIF or WebP answers with
// an image block, and a prompt that names an image (`@shot.png`, or a pasted
// absolute path) carries it. The scripted server validates every image block
// as the API does (media type, base64, size), so an accepted request is one
// the API would accept.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import type { ContentBlockParam, ImageBlockParam, MessageParam, ToolResultBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { runHeadless, workspace } from "../support/cli.ts";
import { tempDir } from "../support/context.ts";
import { reply, startFakeAnthropic, toolUse, type FakeAnthropic } from "../support/fake-anthropic.ts";
import { GIF_1x1, jpegOf, makePng, webpOf } from "../support/images.ts";

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

const blocks = (m: MessageParam | undefined): ContentBlockParam[] => (typeof m?.content === "string" ? [] : (m?.content ?? []));
const statuses = (f: FakeAnthropic) => f.requests.map((r) => `${r.status} ${r.error ?? ""}`.trim());
const imagesIn = (content: unknown) => (Array.isArray(content) ? (content as ContentBlockParam[]) : []).filter((b): b is ImageBlockParam => b.type === "image");
const sourceOf = (b: ImageBlockParam) => b.source as { media_type: string; data: string };

describe("read_file on an image", () => {
  test("PNG, JPEG, GIF and WebP each come back as an image block the server accepts, bytes unchanged", async () => {
    const png = makePng(320, 200);
    const files: Record<string, Buffer> = { "shot.png": png, "photo.jpg": await jpegOf(png), "dot.gif": GIF_1x1, "pic.webp": await webpOf(png) };
    fake = startFakeAnthropic([reply(Object.keys(files).map((path) => toolUse("read_file", { path }))), reply("Four pictures.")]);
    const { root, env } = workspace("bunker-images-", fake.url);
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(root, name), bytes);
    const r = await runHeadless(root, env, ["-p", "look at the pictures"]);
    expect(r.stdout).toBe("Four pictures.\n");
    expect(statuses(fake)).toEqual(["200", "200"]);
    const results = blocks(fake.requests[1]!.body.messages.at(-1)).filter((b): b is ToolResultBlockParam => b.type === "tool_result");
    expect(results).toHaveLength(4);
    const expectedTypes = ["image/png", "image/jpeg", "image/gif", "image/webp"];
    for (const [i, [name, bytes]] of Object.entries(files).entries()) {
      const content = results[i]!.content as ContentBlockParam[];
      expect(content[0]).toMatchObject({ type: "text", text: expect.stringContaining(`${name}: `) });
      const [image] = imagesIn(content);
      expect(sourceOf(image!).media_type).toBe(expectedTypes[i]!);
      expect(Buffer.from(sourceOf(image!).data, "base64").equals(bytes)).toBe(true);
    }
  });

  test("an image over the API's 8000 px limit is scaled down and accepted; a broken one is refused with a sentence", async () => {
    fake = startFakeAnthropic([reply([toolUse("read_file", { path: "banner.png" }), toolUse("read_file", { path: "broken.png" })]), reply("ok")]);
    const { root, env } = workspace("bunker-images-", fake.url);
    writeFileSync(join(root, "banner.png"), makePng(9000, 120));
    writeFileSync(join(root, "broken.png"), makePng(64, 64).subarray(0, 60));
    const r = await runHeadless(root, env, ["-p", "look"]);
    expect(r.code).toBe(0);
    expect(statuses(fake)).toEqual(["200", "200"]);
    const [banner, broken] = blocks(fake.requests[1]!.body.messages.at(-1)) as ToolResultBlockParam[];
    const meta = await new Bun.Image(Buffer.from(sourceOf(imagesIn(banner!.content)[0]!).data, "base64")).metadata();
    expect(Math.max(meta.width, meta.height)).toBe(1568);
    expect(broken).toMatchObject({ is_error: true, content: expect.stringContaining("broken.png looks like a PNG image but cannot be read") });
  });
});

describe("images named in the prompt", () => {
  test("@shot.png and a pasted absolute path inside the workspace go with the prompt; one outside it is refused by the read permission", async () => {
    fake = startFakeAnthropic([reply("I see them.")]);
    const { root, env } = workspace("bunker-attach-", fake.url);
    mkdirSync(join(root, "my shots"));
    writeFileSync(join(root, "shot.png"), makePng(100, 50));
    writeFileSync(join(root, "my shots", "two.jpg"), await jpegOf(makePng(60, 60)));
    const outside = tempDir("bunker-attach-outside-");
    writeFileSync(join(outside, "secret.png"), makePng(10, 10));
    // Dragged into a terminal, a path with a space comes escaped (or quoted).
    const prompt = `compare @shot.png with ${join(root, "my\\ shots")}/two.jpg, and '${join(outside, "secret.png")}'.`;
    const r = await runHeadless(root, env, ["-p", prompt]);
    expect(r.code).toBe(0);
    expect(statuses(fake)).toEqual(["200"]);
    const sent = blocks(fake.requests[0]!.body.messages[0]);
    expect(imagesIn(sent).map((b) => sourceOf(b).media_type)).toEqual(["image/png", "image/jpeg"]);
    const text = (sent[0] as { text: string }).text;
    expect(text).toStartWith(prompt);
    expect(text).toContain(`[${join(outside, "secret.png")} was not attached: `);
    expect(r.stderr).toContain("attached shot.png: PNG image, 100×50");
    expect(r.stderr).toContain(`${join(outside, "secret.png")} was not attached: `);
  });
});

describe("the scripted server checks image blocks as the API does", () => {
  test("a wrong media type, bad base64, over 5 MB or over 8000 px is refused with 400", async () => {
    fake = startFakeAnthropic([reply("fine")]);
    const client = new Anthropic({ apiKey: "k", baseURL: fake.url, maxRetries: 0 });
    const send = (media_type: string, data: string) =>
      client.messages
        .create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: [{ type: "text", text: "see" }, { type: "image", source: { type: "base64", media_type, data } } as ContentBlockParam] }] })
        .then(() => "accepted", (e: Error) => e.message);
    const png = makePng(8, 8).toString("base64");
    expect(await send("image/jpeg", png)).toContain("Image does not match the provided media type image/jpeg");
    expect(await send("image/bmp", png)).toContain("media_type: Input should be");
    expect(await send("image/png", png.slice(1))).toContain("not valid base64");
    expect(await send("image/png", "A".repeat(5 * 1024 * 1024 + 4))).toContain("image exceeds 5 MB maximum");
    expect(await send("image/png", makePng(8001, 1).toString("base64"))).toContain("exceed max allowed size: 8000 pixels");
    expect(await send("image/png", png)).toBe("accepted");
  });
});

describe("other files named in the prompt", () => {
  test("@calc. where Tab stopped between calc.js and calc.test.js is said not attached, naming them; the prompt still goes (new user 13's N13-06)", async () => {
    fake = startFakeAnthropic([reply("Which one?")]);
    const { root, env } = workspace("bunker-attach-stem-", fake.url);
    writeFileSync(join(root, "calc.js"), "1\n");
    writeFileSync(join(root, "calc.test.js"), "2\n");
    const r = await runHeadless(root, env, ["-p", "look at @calc."]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("calc was not attached: @calc names no file; calc.js, calc.test.js are there: name one whole");
    const sent = blocks(fake.requests[0]!.body.messages[0]) as { type: string; text: string }[];
    expect(sent[0]!.text).toContain("[calc was not attached: @calc names no file;");
    expect(sent).toHaveLength(1);
  });

  test("@calc.js goes with the prompt as its numbered lines (read permission checked, cut where read_file cuts, said on stderr); a missing or refused one is said; seen whole, it may be edited without a read_file first", async () => {
    fake = startFakeAnthropic([reply([toolUse("edit_file", { path: "calc.js", old_string: "a - b", new_string: "a + b" })]), reply("Fixed.")]);
    const { root, env } = workspace("bunker-attach-text-", fake.url);
    writeFileSync(join(root, "calc.js"), "function add(a, b) {\n  return a - b;\n}\n");
    writeFileSync(join(root, "big.log"), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n"));
    writeFileSync(join(root, ".env"), "KEY=secret\n");
    const prompt = "fix @calc.js, see @big.log, not @missing.js nor @.env; thanks @bob.";
    const r = await runHeadless(root, env, ["-p", prompt, "--allow-write", "--deny-read=.env"]);
    expect(r.code).toBe(0);
    const sent = blocks(fake.requests[0]!.body.messages[0]) as { type: string; text: string }[];
    expect(sent[0]!.text).toStartWith(prompt);
    expect(sent[0]!.text).toContain("[missing.js was not attached: missing.js does not exist]");
    expect(sent[0]!.text).toContain("[.env was not attached: ");
    expect(sent[1]).toEqual({ type: "text", text: "The person attached the file calc.js, as read_file shows it:\n1\tfunction add(a, b) {\n2\t  return a - b;\n3\t}" });
    expect(sent[2]!.text).toStartWith("The person attached the file big.log, as read_file shows it:\n   1\tline 1\n");
    const cut = /\n\[showing lines 1-(\d+) of 3000 \(output limit reached\); to read on, use offset=(\d+)\]$/.exec(sent[2]!.text);
    expect(cut).not.toBeNull();
    expect(sent).toHaveLength(3);
    expect(JSON.stringify(sent)).not.toContain("KEY=secret");
    expect(r.stderr).toContain("attached calc.js (3 lines)");
    expect(r.stderr).toContain(`attached big.log (first ${Number(cut![1]).toLocaleString("en-US")} lines of 3,000 (the output limit, about 20 KB); Claude can read the rest)`);
    expect(r.stderr).toContain("missing.js was not attached: missing.js does not exist");
    // A handle (@bob) is left as text.
    expect(r.stderr).not.toContain("bob");
    expect(r.stderr).not.toContain("bob");
    // The edit needed no read_file: the file was seen whole.
    expect(readFileSync(join(root, "calc.js"), "utf8")).toBe("function add(a, b) {\n  return a + b;\n}\n");
    expect(r.stdout).toBe("Fixed.\n");
  });

  test("scoped npm names (@types/node, @anthropic-ai/sdk@0.30) are left as text, nothing said; a path whose folder exists is still said missing (R11-15)", async () => {
    fake = startFakeAnthropic([reply("Added.")]);
    const { root, env } = workspace("bunker-attach-npm-", fake.url);
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src", "main.ts"), "export {};\n");
    const prompt = "add @types/node and @anthropic-ai/sdk@0.30 to the dev dependencies, then look at @src/mian.ts";
    const r = await runHeadless(root, env, ["-p", prompt]);
    expect(r.code).toBe(0);
    const sent = blocks(fake.requests[0]!.body.messages[0]) as { type: string; text: string }[];
    expect(sent.map((b) => b.text)).toEqual([`${prompt}\n\n[src/mian.ts was not attached: src/mian.ts does not exist]`]);
    expect(r.stderr).not.toContain("types/node");
    expect(r.stderr).not.toContain("anthropic-ai");
    expect(r.stderr).toContain("src/mian.ts was not attached: src/mian.ts does not exist");
  });
});
