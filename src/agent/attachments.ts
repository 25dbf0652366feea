// Files the person names in a prompt: an image as `@shot.png`, or an
// absolute path pasted (or dragged) into the terminal, goes as an image
// block; any other file named `@calc.js` goes as its text (read_file's
// numbered lines, cut where read_file cuts), as Claude Code attaches it.
// Each is read through the same read permission as read_file; one that
// cannot be attached is said plainly, and the prompt goes anyway.
import type { ContentBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { imageBlock, prepareImage, sniffImage } from "../tools/image.ts";
import { DEFAULT_LINE_LIMIT, formatLines, isBinary, readWholeFile } from "../tools/read-file.ts";
import { utf8Text } from "../text/utf8.ts";
import { attachedFile } from "./history.ts";
import { readdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import { ToolError, type ToolContext } from "../tools/tool.ts";

const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;
/** Anywhere in a prompt (any case): without one of them, no path in it can name an image (IMAGE_NAME's endings). */
const IMAGE_EXTENSIONS = [".png", ".jpg", ".jpeg", ".gif", ".webp"];

/** Whether `prompt` holds an image file's ending anywhere: plain string code, no regular expression on a turn's path (jit.ts). */
function mentionsImageExtension(prompt: string): boolean {
  if (!prompt.includes(".")) return false;
  const lower = prompt.toLowerCase();
  for (const ext of IMAGE_EXTENSIONS) if (lower.includes(ext)) return true;
  return false;
}

export interface FileMention {
  /** The path as the person wrote it (without @, quotes or backslash escapes). */
  path: string;
  /** `@path`: meant as an attachment even when it does not exist. A bare pasted path is attached only if it is a file. */
  explicit: boolean;
}

/**
 * The image paths in a prompt: `@path` (relative or absolute) and absolute
 * or `~/` paths, as a terminal pastes them: bare, quoted, or with `\ ` for
 * spaces. Trailing punctuation of the sentence is not part of the path.
 */
export function findImageMentions(prompt: string): FileMention[] {
  const found: FileMention[] = [];
  // Most prompts name no image: one plain test instead of the tokenizer (which costs 0.1 ms on its first run).
  if (!mentionsImageExtension(prompt)) return found;
  const seen = new Set<string>();
  // At the start of a word (or after an opening bracket): a quoted path, or a run of non-blanks where "\ " keeps a space.
  const token = /(?<=^|[\s(\[])(@?)(?:'([^'\n]+)'|"([^"\n]+)"|((?:\\ |[^\s'"(\[])(?:\\ |[^\s'"])*))/g;
  for (const m of prompt.matchAll(token)) {
    const explicit = m[1] === "@";
    let path = m[2] ?? m[3] ?? m[4]!.replace(/\\ /g, " ");
    if (m[4] !== undefined) path = path.replace(/[.,;:!?)\]]+$/, "");
    if (!IMAGE_NAME.test(path)) continue;
    if (!explicit && !path.startsWith("/") && !path.startsWith("~/")) continue;
    if (seen.has(path)) continue;
    seen.add(path);
    found.push({ path, explicit });
  }
  return found;
}

/**
 * `@path` naming anything but an image (`@calc.js`, `@src/app.ts`): the files whose text is attached. Only with
 * the `@`: a bare path in a sentence is text. Trailing punctuation of the sentence is not part of the path.
 */
export function findTextMentions(prompt: string): string[] {
  const found: string[] = [];
  // Most prompts hold no @ at all.
  if (!prompt.includes("@")) return found;
  const token = /(?<=^|[\s(\[])@(?:'([^'\n]+)'|"([^"\n]+)"|((?:\\ |[^\s'"(\[])(?:\\ |[^\s'"])*))/g;
  for (const m of prompt.matchAll(token)) {
    let path = m[1] ?? m[2] ?? m[3]!.replace(/\\ /g, " ");
    if (m[3] !== undefined) path = path.replace(/[.,;:!?)\]]+$/, "");
    if (!path || IMAGE_NAME.test(path) || found.includes(path)) continue;
    found.push(path);
  }
  return found;
}

/** A word after @ that reads as a path (`calc.js`, `src/`), not a handle (`@bob`): only such a one is said missing. */
const PATH_LIKE = /[./~]/;

/** The files in `real`'s folder whose names start with its name and a dot (`calc` → calc.js, calc.test.js), sorted. */
function filesNamedLike(real: string): string[] {
  try {
    const stem = `${basename(real)}.`;
    return readdirSync(dirname(real)).filter((n) => n.startsWith(stem)).sort();
  } catch {
    return [];
  }
}

/** `types/node`, `anthropic-ai/sdk@1.2` (after the @): a scoped npm name; a path is said missing only where its first folder exists. */
function isPackageName(name: string): boolean {
  return /^[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*(@[\w.^~<>=*-]+)?$/i.test(name);
}

export interface Attached {
  /** The user message: the prompt's text (with a note per file not attached), then the files' text, then the images. */
  content: ContentBlockParam[];
  /** For the person: what was attached, and what was not and why. */
  attachedLines: string[];
  failedLines: string[];
}

/** Whether `written` may name a file to attach: without an @ or an image's ending it names none (attachMentions is null). */
export function mayAttach(written: string): boolean {
  return written.includes("@") || mentionsImageExtension(written);
}

/** `prompt` with the files named in `written` (the person's own words) attached; null when it names none. */
export async function attachMentions(prompt: string, written: string, ctx: ToolContext): Promise<Attached | null> {
  const mentions = findImageMentions(written);
  const texts = findTextMentions(written);
  if (mentions.length === 0 && texts.length === 0) return null;
  const images: ContentBlockParam[] = [];
  const files: ContentBlockParam[] = [];
  const notes: string[] = [];
  const attachedLines: string[] = [];
  const failedLines: string[] = [];
  const failed = (name: string, err: unknown) => {
    // Whatever went wrong, the prompt still goes: say what is missing, to both.
    const why = err instanceof ToolError ? err.message : `unexpected error: ${(err as Error).message}`;
    notes.push(`[${name} was not attached: ${why}]`);
    failedLines.push(`${name} was not attached: ${why}`);
  };
  for (const { path: name, explicit } of mentions) {
    const path = name.startsWith("~/") ? `${process.env.HOME ?? "~"}${name.slice(1)}` : name;
    try {
      const resolved = ctx.perms.resolve(path);
      // A pasted path that is not a file was probably not meant as one.
      if (!resolved.exists && !explicit) continue;
      if (!resolved.exists) throw new ToolError(`${name} does not exist`);
      await ctx.perms.resolveRead(path, "attach");
      const bytes = readWholeFile(resolved.real, resolved.display);
      const type = sniffImage(bytes);
      if (!type) throw new ToolError(`${resolved.display} is not a PNG, JPEG, GIF or WebP image`);
      const image = await prepareImage(bytes, type, resolved.display);
      images.push(imageBlock(image));
      attachedLines.push(`attached ${image.summary}`);
    } catch (err) {
      failed(name, err);
    }
  }
  for (const name of texts) {
    const path = name.startsWith("~/") ? `${process.env.HOME ?? "~"}${name.slice(1)}` : name;
    try {
      const resolved = ctx.perms.resolve(path);
      // `@bob` in a sentence is a handle, not a file: left as text. `@calc.jss` is a file that is not there: said.
      // So is `@calc.` where calc.js and calc.test.js are (Tab stopped where they part: new user 13's N13-06).
      if (!resolved.exists && !PATH_LIKE.test(name)) {
        const near = filesNamedLike(resolved.real);
        if (near.length > 0) failed(name, new ToolError(`@${name} names no file; ${near.slice(0, 5).join(", ")}${near.length > 5 ? ", …" : ""} ${near.length === 1 ? "is" : "are"} there: name one whole`));
        continue;
      }
      // `@types/node`, `@anthropic-ai/sdk@0.30`: an npm package's scoped name, not a file; nothing said (R11-15).
      if (!resolved.exists && isPackageName(name) && !ctx.perms.resolve(name.slice(0, name.indexOf("/"))).exists) continue;
      if (!resolved.exists) throw new ToolError(`${name} does not exist`);
      // The same read permission as read_file, and the same reading: a folder, a pipe or a device is refused.
      await ctx.perms.resolveRead(path, "attach");
      const bytes = readWholeFile(resolved.real, resolved.display);
      const type = sniffImage(bytes);
      if (type) {
        const image = await prepareImage(bytes, type, resolved.display);
        images.push(imageBlock(image));
        attachedLines.push(`attached ${image.summary}`);
        continue;
      }
      if (isBinary(bytes)) throw new ToolError(`${resolved.display} is a binary file (${bytes.length} bytes); only text files and images are attached`);
      const text = utf8Text(bytes);
      const total = lineCount(text);
      // read_file's own lines and cut; `shown` says what part when it cut ("first 1,407 lines of 3,000 (…)").
      const lines = bytes.length === 0 ? { text: `(${resolved.display} is empty)` } : formatLines(text, 1, DEFAULT_LINE_LIMIT);
      files.push(attachedFile(resolved.display, lines.text));
      // Seen whole, it counts as read (an edit needs no read_file first); cut, the model reads on from where it stopped.
      if (!lines.shown) ctx.session.recordRead(resolved.real, bytes);
      attachedLines.push(
        lines.shown
          ? `attached ${resolved.display} (${lines.shown}; Claude can read the rest)`
          : `attached ${resolved.display} (${total} line${total === 1 ? "" : "s"})`,
      );
    } catch (err) {
      failed(name, err);
    }
  }
  if (images.length === 0 && files.length === 0 && notes.length === 0) return null;
  const text = notes.length > 0 ? `${prompt}\n\n${notes.join("\n")}` : prompt;
  return { content: [{ type: "text", text }, ...files, ...images], attachedLines, failedLines };
}

function lineCount(text: string): number {
  if (text === "") return 0;
  const n = text.split("\n").length;
  return text.endsWith("\n") ? n - 1 : n;
}
