import { expect } from "chai";
import { describe, it } from "mocha";
import { checkAddress, checkUrl, InvalidReadingConfig, originOnly, parseAllowList } from "../../src/reading/index.js";

describe("reading: SSRF target policy", () => {
  const refused = [
    "10.1.2.3",
    "172.20.0.1",
    "192.168.10.10",
    "127.0.0.1",
    "0.0.0.0",
    "169.254.169.254",
    "100.64.1.1",
    "::1",
    "fc00::1",
    "fd00::5",
    "fe80::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::7f00:1",
    "64:ff9b::a00:1",
    "2002:7f00:1::",
    "224.0.0.251",
    "255.255.255.255",
    "198.18.0.1",
    "2001:db8::1",
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => expect(checkAddress(address).allowed).to.equal(false));
  }
  it("allows public unicast v4 and v6 (and mapped public v4)", () => {
    for (const address of ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.215.14"]) {
      expect(checkAddress(address).allowed, address).to.equal(true);
    }
  });
  it("checks IP-literal URLs after WHATWG normalisation (decimal, octal, hex, short forms)", () => {
    for (const url of [
      "http://2130706433/",
      "http://0177.0.0.1/",
      "http://0x7f000001/",
      "http://127.1/",
      "http://a@127.0.0.1/",
      "http://[::ffff:7f00:1]/",
    ]) {
      expect(checkUrl(url).allowed, url).to.equal(false);
    }
    expect(checkUrl("http://example.com/").allowed).to.equal(true);
  });
  it("refuses schemes other than http and https, and localhost names", () => {
    for (const url of [
      "file:///etc/passwd",
      "gopher://x/",
      "ftp://example.com/",
      "http://localhost/",
      "http://api.localhost/",
    ]) {
      expect(checkUrl(url).allowed, url).to.equal(false);
    }
  });
  it("parses the allow list: CIDRs, addresses, host names, wildcards; empty by default", () => {
    const allow = parseAllowList("10.0.0.0/8, ::1 intranet.corp *.svc.cluster");
    expect(checkAddress("10.9.9.9", allow).allowed).to.equal(true);
    expect(checkAddress("::1", allow).allowed).to.equal(true);
    expect(checkAddress("192.168.0.1", allow).allowed).to.equal(false);
    expect(checkUrl("http://intranet.corp/", allow).allowed).to.equal(true);
    expect(checkUrl("http://api.svc.cluster/", allow).allowed).to.equal(true);
    expect(parseAllowList(undefined)).to.deep.equal({ ranges: [], hosts: [] });
    expect(parseAllowList("")).to.deep.equal({ ranges: [], hosts: [] });
  });
  it("rejects malformed allow-list entries instead of ignoring them", () => {
    for (const bad of ["10.0.0.0/40", "not a host!", "http://x/"]) {
      expect(() => parseAllowList(bad), bad).to.throw(InvalidReadingConfig);
    }
  });
  it("originOnly keeps scheme, host and port: never credentials, path, query or fragment", () => {
    expect(originOnly("https://user:pw@shop.example:8443/a/b?token=1#x")).to.equal("https://shop.example:8443");
    expect(originOnly("file:///etc/passwd")).to.equal(null);
    expect(originOnly("not a url")).to.equal(null);
  });
});
