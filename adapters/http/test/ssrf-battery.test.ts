import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import nock from "nock";
import type { DnsLookup } from "../src/index.js";
import {
  type FetcherHarness,
  html,
  type Loopback,
  makeFetcher,
  mockedPublicAddresses,
  pageRequest,
  readFailure,
  sendHtml,
  startServer,
  tripped,
} from "./loopback.js";

/**
 * The SSRF battery: every target must be refused as `unsafe_target`, with `finalUrl` holding the
 * origin only, before a single byte reaches it. The victim is a real loopback server counting TCP
 * connections; other private addresses are never reachable because the tripwire in loopback.ts would
 * record (and divert) any socket to them. No GLEANER_ALLOW_PRIVATE_TARGETS here: the default policy.
 */

const PUBLIC_IP = "93.184.215.14";
const privateAnswers: Record<string, string> = {
  "ten.example": "10.0.0.1",
  "rfc1918-172.example": "172.16.0.1",
  "rfc1918-192.example": "192.168.0.1",
  "loopback.example": "127.0.0.1",
  "zero.example": "0.0.0.0",
  "metadata.example": "169.254.169.254",
  "cgnat.example": "100.64.0.1",
  "v6-loopback.example": "::1",
  "ula.example": "fc00::1",
  "link-local6.example": "fe80::1",
  "mapped.example": "::ffff:127.0.0.1",
};

const lookup: DnsLookup = async (hostname) => {
  if (hostname === "shop.example.com") return [{ address: PUBLIC_IP, family: 4 }];
  if (hostname === "mixed.example")
    return [
      { address: PUBLIC_IP, family: 4 },
      { address: "10.1.2.3", family: 4 },
    ];
  const answer = privateAnswers[hostname];
  if (!answer) throw Object.assign(new Error(`no test DNS answer for ${hostname}`), { code: "ENOTFOUND" });
  return [{ address: answer, family: answer.includes(":") ? 6 : 4 }];
};

describe("http fetcher: SSRF battery (every target refused before a byte is sent)", () => {
  let victim: Loopback;
  let fetcher: FetcherHarness;
  let port: number;

  before(async () => {
    victim = await startServer(sendHtml(html("<p>internal admin page</p>")));
    port = victim.port;
    fetcher = makeFetcher({ lookup, retry: { maxAttempts: 1 } });
    mockedPublicAddresses.add(PUBLIC_IP);
    mockedPublicAddresses.add("shop.example.com");
    nock.disableNetConnect();
    nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
  });
  after(async () => {
    await fetcher.dispose();
    await victim.close();
    nock.cleanAll();
    nock.enableNetConnect();
    mockedPublicAddresses.clear();
  });

  const expectRefused = async (url: string, finalUrl: string | null) => {
    const before = victim.connections;
    const failure = await readFailure(fetcher, pageRequest(url));
    expect(failure.failure, url).to.deep.equal({ reason: "unsafe_target", status: null, finalUrl });
    expect(victim.connections - before, `${url} reached the victim`).to.equal(0);
    expect(tripped, "no socket may leave loopback").to.deep.equal([]);
  };

  const literalTargets = (): Array<[string, string]> => [
    ["http://10.0.0.1/", "http://10.0.0.1"],
    ["http://10.255.255.254/admin", "http://10.255.255.254"],
    ["http://172.16.0.1/", "http://172.16.0.1"],
    ["http://172.31.255.254/", "http://172.31.255.254"],
    ["http://192.168.0.1/", "http://192.168.0.1"],
    ["http://192.168.1.254:8080/", "http://192.168.1.254:8080"],
    [`http://127.0.0.1:${port}/`, `http://127.0.0.1:${port}`],
    ["http://127.0.0.2/", "http://127.0.0.2"],
    ["http://127.255.255.254/", "http://127.255.255.254"],
    [`http://0.0.0.0:${port}/`, `http://0.0.0.0:${port}`],
    [`http://0:${port}/`, `http://0.0.0.0:${port}`],
    ["http://169.254.169.254/latest/meta-data/iam/", "http://169.254.169.254"],
    ["http://100.64.0.1/", "http://100.64.0.1"],
    ["http://100.127.255.254/", "http://100.127.255.254"],
    [`http://[::1]:${port}/`, `http://[::1]:${port}`],
    ["http://[fc00::1]/", "http://[fc00::1]"],
    ["http://[fd12:3456:789a::1]/", "http://[fd12:3456:789a::1]"],
    ["http://[fe80::1]/", "http://[fe80::1]"],
    [`http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}`],
    ["http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]"],
    ["http://[::7f00:1]/", "http://[::7f00:1]"],
    ["http://[::]/", "http://[::]"],
    [`http://2130706433:${port}/`, `http://127.0.0.1:${port}`],
    [`http://0177.0.0.1:${port}/`, `http://127.0.0.1:${port}`],
    [`http://0x7f000001:${port}/`, `http://127.0.0.1:${port}`],
    [`http://127.1:${port}/`, `http://127.0.0.1:${port}`],
    [`http://example.com@127.0.0.1:${port}/`, `http://127.0.0.1:${port}`],
    ["http://user:secret@169.254.169.254/", "http://169.254.169.254"],
    ["https://10.0.0.1/", "https://10.0.0.1"],
    [`http://localhost:${port}/`, `http://localhost:${port}`],
    ["http://224.0.0.1/", "http://224.0.0.1"],
    ["http://255.255.255.255/", "http://255.255.255.255"],
  ];

  it("refuses 32 IP-literal and disguised targets (private, loopback, link-local, CGNAT, metadata, octal/hex/decimal/short, userinfo)", async () => {
    const targets = literalTargets();
    expect(targets).to.have.length(32);
    for (const [url, origin] of targets) await expectRefused(url, origin);
  });

  it("refuses the non-http schemes file:, gopher: and ftp:", async () => {
    for (const url of ["file:///etc/passwd", "gopher://127.0.0.1:70/", "ftp://127.0.0.1/"]) {
      const failure = await readFailure(fetcher, pageRequest(url));
      expect(failure.failure.reason, url).to.equal("unsafe_target");
      expect(failure.failure.finalUrl).to.equal(null);
    }
  });

  for (const [name, address] of Object.entries(privateAnswers)) {
    it(`refuses a name resolving to ${address} at connect time (${name})`, async () => {
      await expectRefused(`http://${name}:${port}/page?q=1`, `http://${name}:${port}`);
    });
  }

  it("refuses a name with a public and a private answer", async () => {
    await expectRefused(`http://mixed.example:${port}/`, `http://mixed.example:${port}`);
  });

  const redirectTargets = (): string[] => [
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.0.1/",
    `http://127.0.0.1:${port}/`,
    `http://0.0.0.0:${port}/`,
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    `http://[::1]:${port}/`,
    "http://[fc00::1]/",
    "http://[fe80::1]/",
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://2130706433:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://127.1:${port}/`,
    `http://example.com@127.0.0.1:${port}/`,
    ...Object.keys(privateAnswers).map((name) => `http://${name}:${port}/`),
  ];

  it("refuses a redirect from a public host into each private target (27 chains, nock as the public host)", async () => {
    const targets = redirectTargets();
    expect(targets).to.have.length(27);
    for (const [index, target] of targets.entries()) {
      const scope = nock("http://shop.example.com")
        .get("/robots.txt")
        .reply(404)
        .get(`/go/${index}`)
        .reply(302, "", { location: target });
      const finalUrl = new URL(target).origin;
      await expectRefused(`http://shop.example.com/go/${index}`, finalUrl);
      expect(scope.isDone() || scope.pendingMocks().every((m) => m.includes("robots")), target).to.equal(true);
    }
  });

  it("refuses a two-hop chain that ends in the metadata address", async () => {
    nock("http://shop.example.com")
      .get("/a")
      .reply(301, "", { location: "/b" })
      .get("/b")
      .reply(302, "", { location: "http://metadata.example/latest/" });
    await expectRefused("http://shop.example.com/a", "http://metadata.example");
  });

  it("reads the public host itself (the battery is not refusing everything)", async () => {
    nock("http://shop.example.com")
      .get("/robots.txt")
      .reply(404)
      .get("/catalogue")
      .reply(200, html("<p>public page</p>"), { "content-type": "text/html" });
    const result = await fetcher.read(pageRequest("http://shop.example.com/catalogue"));
    expect(result._tag).to.equal("Right");
  });
});
