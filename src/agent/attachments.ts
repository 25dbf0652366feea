// Images the person names in a prompt: `@shot.png`, or an absolute path
// pasted (or dragged) into the terminal. Each is read through the same read
// permission as read_file and goes with the prompt as an image block; one
// that cannot be attached is said plainly, and the prompt goes anyway.
import type { ContentBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { imageBlock, prepareImage, sniffImage } from "../tools/image.ts";
import { readWholeFile } from "../tools/read-file.ts";
import { ToolError, type ToolContext } from "../tools/tool.ts";

const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;
/** Anywhere in a prompt: without it, no path in it can name an image. */
const IMAGE_EXTENSION = /\.(png|jpe?g|gif|webp)/i;

export interface ImageMention {
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
export function findImageMentions(prompt: string): ImageMention[] {
  const found: ImageMention[] = [];
  // Most prompts name no image: one plain test instead of the tokenizer (which costs 0.1 ms on its first run).
  if (!IMAGE_EXTENSION.test(prompt)) return found;
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

export interface Attached {
  /** The user message: the prompt's text (with a note per image not attached), then one image block per attachment. */
  content: ContentBlockParam[];
  /** For the person: what was attached, and what was not and why. */
  attachedLines: string[];
  failedLines: string[];
}

/** `prompt` with the images named in `written` (the person's own words) attached; null when it names none. */
export async function attachImages(prompt: string, written: string, ctx: ToolContext): Promise<Attached | null> {
  const mentions = findImageMentions(written);
  if (mentions.length === 0) return null;
  const images: ContentBlockParam[] = [];
  const notes: string[] = [];
  const attachedLines: string[] = [];
  const failedLines: string[] = [];
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
      // Whatever went wrong, the prompt still goes: say what is missing, to both.
      const why = err instanceof ToolError ? err.message : `unexpected error: ${(err as Error).message}`;
      notes.push(`[${name} was not attached: ${why}]`);
      failedLines.push(`${name} was not attached: ${why}`);
    }
  }
  if (images.length === 0 && notes.length === 0) return null;
  const text = notes.length > 0 ? `${prompt}\n\n${notes.join("\n")}` : prompt;
  return { content: [{ type: "text", text }, ...images], attachedLines, failedLines };
}
