/**
 * Which addresses a destination may reach (the SSRF rules of docs/alert-destinations.md), and the URL rules around
 * them: literal addresses only, so no DNS is involved.
 */
import { describe, expect, it } from "vitest";
import { isLoopbackAddress, isPublicAddress } from "../../functions/alerts/delivery/address-classification.js";
import {
  DestinationUrlError,
  parseDestinationUrl,
  resolveDeliveryTarget,
} from "../../functions/alerts/delivery/destination-url-policy.js";

const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "52.94.76.10",
  "100.63.255.255", // just below CGNAT
  "100.128.0.0", // just above CGNAT
  "172.15.255.255",
  "172.32.0.0",
  "192.167.255.255",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001:82b::200e",
  "::ffff:8.8.8.8",
  "::ffff:808:808", // the same, as the URL parser writes it
  "2002:0808:0808::1", // 6to4 of a public address
];

const NOT_PUBLIC = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "this network"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "CGNAT"],
  ["100.127.255.254", "CGNAT"],
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["169.254.169.254", "metadata"],
  ["169.254.0.1", "link-local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "IETF"],
  ["192.0.2.10", "documentation"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback, long form"],
  ["::ffff:127.0.0.1", "mapped loopback"],
  ["::ffff:7f00:1", "mapped loopback, hex"],
  ["::ffff:169.254.169.254", "mapped metadata"],
  ["::ffff:a9fe:a9fe", "mapped metadata, hex"],
  ["::ffff:10.0.0.1", "mapped private"],
  ["::127.0.0.1", "IPv4-compatible"],
  ["64:ff9b::a9fe:a9fe", "NAT64"],
  ["2002:a9fe:a9fe::1", "6to4 of the metadata address"],
  ["2002:c0a8:0101::1", "6to4 of a private address"],
  ["fc00::1", "unique-local"],
  ["fd12:3456:789a::1", "unique-local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local with a zone"],
  ["febf::1", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["2001::1", "Teredo"],
  ["100::1", "discard"],
  ["3fff::1", "documentation (RFC 9637)"],
  ["not an address", "text"],
  ["1.2.3", "short IPv4"],
  ["1.2.3.256", "bad IPv4"],
  ["1:2:3:4:5:6:7:8:9", "too many groups"],
  ["", "empty"],
] as const;

describe("isPublicAddress", () => {
  it.each(PUBLIC)("%s is public", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(NOT_PUBLIC)("%s (%s) is not", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe("isLoopbackAddress", () => {
  it.each(["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1"])("%s is loopback", (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });

  it.each(["10.0.0.1", "::", "::2", "fe80::1", "8.8.8.8", "localhost"])("%s is not", (address) => {
    expect(isLoopbackAddress(address)).toBe(false);
  });
});

async function refusal(url: string, policy: "public" | "loopback"): Promise<string | undefined> {
  try {
    await resolveDeliveryTarget(url, policy);
    return undefined;
  } catch (error) {
    if (error instanceof DestinationUrlError) return error.message;
    throw error;
  }
}

describe("the URL rules", () => {
  it("wants https and no credentials under the public rule; the loopback rule adds http to loopback hosts", () => {
    expect(() => parseDestinationUrl("http://example.com/", "public")).toThrow("Must be an https:// URL");
    expect(() => parseDestinationUrl("ftp://example.com/", "loopback")).toThrow(
      "Must be an https:// URL, or http:// to a loopback host",
    );
    expect(() => parseDestinationUrl("https://a:b@example.com/", "public")).toThrow(
      "Must not carry a user name or password",
    );
    expect(() => parseDestinationUrl("/relative", "public")).toThrow("Must be an absolute URL");
    expect(() => parseDestinationUrl(`https://example.com/${"x".repeat(2048)}`, "public")).toThrow(
      "Must be at most 2048 characters",
    );
    expect(parseDestinationUrl("http://127.0.0.1:8787/hook", "loopback").port).toBe("8787");
  });

  it("connects to the literal address it checked, and refuses a private one", async () => {
    expect(await resolveDeliveryTarget("https://1.1.1.1/hook", "public")).toMatchObject({
      address: "1.1.1.1",
      family: 4,
    });
    expect(await resolveDeliveryTarget("https://[2606:4700::1111]/", "public")).toMatchObject({
      address: "2606:4700::1111",
      family: 6,
    });
    expect(await refusal("https://10.0.0.7/", "public")).toBe(
      "The host 10.0.0.7 resolves to 10.0.0.7, which is not a public address",
    );
    expect(await refusal("https://[::ffff:169.254.169.254]/", "loopback")).toBe(
      "The host ::ffff:a9fe:a9fe resolves to ::ffff:a9fe:a9fe, which is not a public address",
    );
  });

  it("refuses loopback under the public rule and allows it, http included, under the loopback rule", async () => {
    expect(await refusal("https://127.0.0.1/", "public")).toBe(
      "The host 127.0.0.1 resolves to 127.0.0.1, which is not a public address",
    );
    expect(await refusal("http://127.0.0.1:9/", "loopback")).toBeUndefined();
    expect(await refusal("http://[::1]:9/", "loopback")).toBeUndefined();
    expect(await refusal("http://10.0.0.1/", "loopback")).toBe(
      "The host 10.0.0.1 resolves to 10.0.0.1, which is not a public address (http:// is allowed to loopback hosts only)",
    );
    // A name is resolved: localhost resolves to loopback only.
    expect(await refusal("https://localhost/", "public")).toMatch(
      /^The host localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/,
    );
  });
});
