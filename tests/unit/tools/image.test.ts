// Image files become image blocks the API accepts: sent as they are when
// they fit, scaled down when they are large, refused with a sentence when
// they cannot be read or made to fit.
import { describe, expect, test } from "bun:test";
import { MAX_IMAGE_BASE64, prepareImage, sniffImage, TARGET_IMAGE_SIDE } from "../../../src/tools/image.ts";
import { ToolError } from "../../../src/tools/tool.ts";
import { GIF_1x1, jpegOf, makePng, pngClaiming, webpOf } from "../../support/images.ts";

const refusal = (p: Promise<unknown>) => p.then(() => "accepted", (e: Error) => `${e instanceof ToolError ? "ToolError" : e.name}: ${e.message}`);

describe("sniffImage", () => {
  test("knows the four formats by their bytes, not their names", async () => {
    const png = makePng(4, 4);
    expect(sniffImage(png)).toBe("image/png");
    expect(sniffImage(await jpegOf(png))).toBe("image/jpeg");
    expect(sniffImage(await webpOf(png))).toBe("image/webp");
    expect(sniffImage(GIF_1x1)).toBe("image/gif");
    expect(sniffImage(Buffer.from("%PDF-1.7\n"))).toBeNull();
    expect(sniffImage(Buffer.from("just text"))).toBeNull();
  });
});

describe("prepareImage", () => {
  test("an image within the limits goes byte for byte", async () => {
    const png = makePng(640, 480);
    const r = await prepareImage(png, "image/png", "shot.png");
    expect(r.mediaType).toBe("image/png");
    expect(Buffer.from(r.data, "base64").equals(png)).toBe(true);
    expect(r.summary).toBe(`shot.png: PNG image, 640×480, ${Math.round(png.length / 1024)} KB`);
  });

  test("a tiny image's size is in bytes, not rounded up to 1 KB", async () => {
    const png = makePng(1, 1);
    expect(png.length).toBeLessThan(1024);
    expect((await prepareImage(png, "image/png", "dot.png")).summary).toBe(`dot.png: PNG image, 1×1, ${png.length} bytes`);
  });

  test("a wide screenshot is scaled to the API's working size and stays a PNG", async () => {
    const r = await prepareImage(makePng(9000, 300), "image/png", "wide.png");
    const meta = await new Bun.Image(Buffer.from(r.data, "base64")).metadata();
    expect(meta).toEqual({ width: TARGET_IMAGE_SIDE, height: 52, format: "png" });
    expect(r.summary).toContain("wide.png: PNG image, 9000×300");
    expect(r.summary).toContain(`scaled to ${TARGET_IMAGE_SIDE}×52 PNG`);
  });

  test("a GIF that must shrink becomes a JPEG; one that fits stays a GIF", async () => {
    expect((await prepareImage(GIF_1x1, "image/gif", "dot.gif")).mediaType).toBe("image/gif");
    const big = await jpegOf(makePng(2000, 2000));
    const r = await prepareImage(big, "image/jpeg", "photo.jpg");
    expect(r.mediaType).toBe("image/jpeg");
    expect(r.data.length).toBeLessThanOrEqual(MAX_IMAGE_BASE64);
  });

  test("over 5 MB of noise at full size still fits once scaled", async () => {
    const noisy = makePng(1400, 1400, { noise: true });
    expect(noisy.length * (4 / 3)).toBeGreaterThan(MAX_IMAGE_BASE64);
    const r = await prepareImage(noisy, "image/png", "noise.png");
    expect(r.data.length).toBeLessThanOrEqual(MAX_IMAGE_BASE64);
    expect(r.summary).toContain("to fit the API's limits");
  });

  test("a corrupt image or a decompression bomb is refused with a sentence", async () => {
    const cut = makePng(64, 64).subarray(0, 40);
    expect(await refusal(prepareImage(cut, "image/png", "cut.png"))).toStartWith("ToolError: cut.png looks like a PNG image but cannot be read");
    expect(await refusal(prepareImage(pngClaiming(50_000, 50_000), "image/png", "bomb.png"))).toBe(
      "ToolError: bomb.png looks like a PNG image but cannot be read: it has more than 100 million pixels",
    );
  });
});
