import { expect } from "chai";
import { after, before, describe, it } from "mocha";
import {
  type FetcherHarness,
  html,
  type Loopback,
  makeFetcher,
  pageRequest,
  readFailure,
  readPage,
  sendHtml,
  startServer,
} from "./loopback.js";

/** GLEANER_ALLOW_PRIVATE_TARGETS: empty by default; CIDRs and host names let listed private targets through. */
describe("http fetcher: GLEANER_ALLOW_PRIVATE_TARGETS", () => {
  let site: Loopback;
  const lookup = async (hostname: string) =>
    hostname === "books.test" || hostname === "other.test" ? [{ address: "127.0.0.1", family: 4 }] : [];
  const harnesses: FetcherHarness[] = [];
  const fetcher = (allowPrivateTargets?: string) => {
    const harness = makeFetcher({
      lookup,
      retry: { maxAttempts: 1 },
      ...(allowPrivateTargets === undefined ? {} : { allowPrivateTargets }),
    });
    harnesses.push(harness);
    return harness;
  };

  before(async () => {
    site = await startServer(sendHtml(html("<p>local fixture site</p>")));
  });
  after(async () => {
    await Promise.all(harnesses.map((harness) => harness.dispose()));
    await site.close();
  });

  it("by default a loopback site is refused", async () => {
    expect((await readFailure(fetcher(), pageRequest(`${site.url}/`))).failure.reason).to.equal("unsafe_target");
    expect(site.connections).to.equal(0);
  });

  it("a listed CIDR lets the site through (comma and space separated, as in the environment)", async () => {
    const page = await readPage(fetcher("10.0.0.0/8, 127.0.0.0/8"), pageRequest(`${site.url}/`));
    expect(page.body).to.contain("local fixture site");
  });

  it("a listed host name lets that name through, and only that name", async () => {
    const harness = fetcher("books.test");
    await readPage(harness, pageRequest(`http://books.test:${site.port}/`));
    expect((await readFailure(harness, pageRequest(`http://other.test:${site.port}/`))).failure.reason).to.equal(
      "unsafe_target",
    );
  });

  it("a malformed entry fails the Layer, naming the setting", async () => {
    const error = await fetcher("10.0.0.0/99")
      .read(pageRequest(`${site.url}/`))
      .then(
        () => "",
        (e: unknown) => String(e),
      );
    expect(error).to.contain("GLEANER_ALLOW_PRIVATE_TARGETS");
  });
});
