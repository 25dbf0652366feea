import { expect, test } from "bun:test";
import { formatSize } from "../../../src/text/size.ts";

test("sizes read as a person says them", () => {
  expect(formatSize(512)).toBe("512 bytes");
  expect(formatSize(34 * 1024 + 100)).toBe("34 KB");
  expect(formatSize(10_258_895)).toBe("9.8 MB");
  expect(formatSize(2 ** 31)).toBe("2.0 GB");
});
