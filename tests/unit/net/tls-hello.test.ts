// Reading the server name from ClientHellos: real ones from Bun's TLS client,
// split across records and reads, and made-up ones a lenient server might read
// differently from bunker (those are malformed).
import { describe, expect, test } from "bun:test";
import { readClientHello, startsTls } from "../../../src/net/tls-hello.ts";
import { captureClientHello, extension, helloMessage, inRecords, serverNameData } from "../../support/tls-hello.ts";

describe("readClientHello", () => {
  test("a real client's hello gives its server name as sent; without one (an address), null", async () => {
    const named = await captureClientHello("Example.COM");
    expect(startsTls(named)).toBe(true);
    expect(readClientHello(named)).toEqual({ kind: "hello", serverName: "Example.COM", ech: false });
    expect(readClientHello(await captureClientHello())).toEqual({ kind: "hello", serverName: null, ech: false });
  });

  test("bytes arriving one at a time: 'more' at every cut, the name once it is whole", async () => {
    const hello = await captureClientHello("registry.npmjs.org");
    for (let n = 1; n < hello.length; n++) expect(readClientHello(hello.subarray(0, n)).kind).toBe("more");
    expect(readClientHello(hello)).toEqual({ kind: "hello", serverName: "registry.npmjs.org", ech: false });
  });

  test("one hello split into many records (a client may fragment it), and one of 20 KB across two full records", () => {
    const message = helloMessage(extension(0, serverNameData("a.example")));
    expect(readClientHello(inRecords(message, 7))).toEqual({ kind: "hello", serverName: "a.example", ech: false });
    const big = helloMessage([...extension(0, serverNameData("big.example")), ...extension(21, new Array(20_000).fill(0))]);
    expect(readClientHello(inRecords(big))).toEqual({ kind: "hello", serverName: "big.example", ech: false });
  });

  test("ECH (and the draft ESNI) is reported; the outer name is not taken as the one asked for", () => {
    const ech = helloMessage([...extension(0, serverNameData("public.example")), ...extension(0xfe0d, [0, 1, 2])]);
    expect(readClientHello(inRecords(ech))).toEqual({ kind: "hello", serverName: "public.example", ech: true });
    expect(readClientHello(inRecords(helloMessage(extension(0xffce, [1]))))).toMatchObject({ ech: true });
  });

  test("what a server might read differently is malformed: two names, a duplicate extension, trailing bytes, a non-DNS name", () => {
    const reason = (message: Buffer) => {
      const r = readClientHello(inRecords(message));
      return r.kind === "malformed" ? r.reason : `not malformed: ${JSON.stringify(r)}`;
    };
    expect(reason(helloMessage(extension(0, serverNameData("a.example", "b.example"))))).toBe("more than one server name");
    expect(reason(helloMessage([...extension(0, serverNameData("a.example")), ...extension(0, serverNameData("b.example"))]))).toBe("extension 0 appears twice");
    expect(reason(helloMessage(extension(0, [...serverNameData("a.example"), 0])))).toBe("the server name list's length does not match its extension's");
    expect(reason(helloMessage(extension(0, serverNameData("a.example\u0000.evil"))))).toBe("the server name is not a DNS name");
    expect(reason(helloMessage(extension(0, serverNameData(""))))).toBe("the server name is not a DNS name");
    expect(reason(helloMessage(extension(0, [0, 3, 1, 0, 0])))).toBe("a server name that is not a host name");
    const cut = helloMessage(extension(0, serverNameData("a.example")));
    expect(reason(Buffer.concat([cut.subarray(0, 3), Buffer.from([cut[3]! - 4]), cut.subarray(4, cut.length - 4)]))).toBe("the extensions' length does not match the ClientHello's");
  });

  test("not a hello at all: another record type, a record over 16 KB, another handshake message, a hello over 64 KB", () => {
    expect(readClientHello(Buffer.from([23, 3, 3, 0, 1, 0]))).toEqual({ kind: "malformed", reason: "a TLS record of type 23 came before the ClientHello was whole" });
    expect(readClientHello(Buffer.from([22, 3, 1, 0x40, 0x01]))).toEqual({ kind: "malformed", reason: "a record of 16385 bytes, over TLS's 16 KB" });
    expect(readClientHello(Buffer.from([22, 3, 1, 0, 4, 2, 0, 0, 0]))).toEqual({ kind: "malformed", reason: "the first handshake message is of type 2, not a ClientHello" });
    expect(readClientHello(Buffer.from([22, 3, 1, 0, 4, 1, 1, 0, 1]))).toEqual({ kind: "malformed", reason: "a ClientHello of 65537 bytes, over bunker's limit of 64 KB" });
    expect(readClientHello(Buffer.from([22, 3, 1, 0, 0]))).toEqual({ kind: "malformed", reason: "an empty handshake record" });
  });
});
