import { describe, expect, test } from "bun:test";
import { hostsCover, normalizeHost, parseHostPattern, splitHostPort } from "../../../src/net/host-pattern.ts";

describe("host patterns", () => {
  test("host, host:port, *.domain, addresses", () => {
    expect(parseHostPattern("Example.COM")).toEqual({ host: "example.com", wildcard: false });
    expect(parseHostPattern("example.com:443")).toEqual({ host: "example.com", wildcard: false, port: 443 });
    expect(parseHostPattern("*.example.com")).toEqual({ host: "example.com", wildcard: true });
    expect(parseHostPattern("[::1]:8080")).toEqual({ host: "[::1]", wildcard: false, port: 8080 });
    for (const bad of ["", "a b", "http://x", "x:0", "x:70000", "*", "a.*.com", "user@host", "::1"]) expect(parseHostPattern(bad)).toBeNull();
  });

  test("a name matches itself on any port, or only the port named", () => {
    expect(hostsCover(["example.com"], "example.com:443")).toBe(true);
    expect(hostsCover(["example.com"], "example.com:8443")).toBe(true);
    expect(hostsCover(["example.com:443"], "example.com:80")).toBe(false);
    expect(hostsCover(["example.com"], "example.com.evil.net:443")).toBe(false);
    expect(hostsCover(["example.com"], "notexample.com:443")).toBe(false);
  });

  test("*.domain covers names below it, not the domain, not a look-alike", () => {
    expect(hostsCover(["*.example.com"], "a.b.example.com:443")).toBe(true);
    expect(hostsCover(["*.example.com"], "example.com:443")).toBe(false);
    expect(hostsCover(["*.example.com"], "badexample.com:443")).toBe(false);
  });

  test("every spelling of an address is the same address", () => {
    for (const spelling of ["0x7f.1", "2130706433", "127.1", "0177.0.0.1", "127.0.0.1"]) expect(normalizeHost(spelling)).toBe("127.0.0.1");
    expect(normalizeHost("[::ffff:127.0.0.1]")).toBe("127.0.0.1");
    expect(hostsCover(["0x7f.1:80"], "127.0.0.1:80")).toBe(true);
    expect(splitHostPort("[::1]:443")).toEqual({ host: "[::1]", port: 443 });
  });

  test("one form per host, so a deny is not passed by another spelling: the DNS root's dot and an IPv4 address written as IPv6 (reviewer's R11-03)", () => {
    expect(normalizeHost("pastebin.com.")).toBe("pastebin.com");
    expect(normalizeHost("EXAMPLE.com.")).toBe("example.com");
    expect(normalizeHost("[::ffff:93.184.216.34]")).toBe("93.184.216.34");
    expect(normalizeHost("localhost.")).toBe("127.0.0.1");
    for (const bad of [".", "a..b", "x.."]) expect(normalizeHost(bad)).toBeNull();
    expect(hostsCover(["pastebin.com"], `${normalizeHost("pastebin.com.")}:443`)).toBe(true);
    expect(hostsCover(["*.pastebin.com"], `${normalizeHost("x.pastebin.com.")}:443`)).toBe(true);
    expect(hostsCover(["93.184.216.34"], `${normalizeHost("[::ffff:5db8:d822]")}:80`)).toBe(true);
  });
});
