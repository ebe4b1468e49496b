import { expect } from "chai";
import { previewEstimate } from "../src/engine/preview.js";
import { pageIdentity, pagesToCharge } from "../src/rules/page-identity.js";

describe("a page's identity", () => {
  it("is the WHATWG-normalised URL without its fragment; the query stays", () => {
    expect(pageIdentity("http://shop.test/p/2#again")).to.equal("http://shop.test/p/2");
    expect(pageIdentity("HTTP://Shop.TEST:80/a/./b/../p/1#top")).to.equal("http://shop.test/a/p/1");
    expect(pageIdentity("http://shop.test/p/%7e1")).to.equal(pageIdentity("http://shop.test/p/%7e1#x"));
    expect(pageIdentity("http://shop.test/p/2?same=1")).to.not.equal(pageIdentity("http://shop.test/p/2"));
    expect(pageIdentity("not a url")).to.equal("not a url");
  });

  it("counts one credit per distinct page, whatever the spelling", () => {
    expect(
      pagesToCharge([
        "http://shop.test/p/1",
        "http://SHOP.test/p/1#top",
        "http://shop.test:80/p/2",
        "http://shop.test/p/2?x=1",
      ]),
    ).to.equal(3);
  });

  it("a preview estimates the credits a run is charged: one per distinct page, whatever the spelling", () => {
    const read = ["http://shop.test/p/1", "http://SHOP.test/p/1#top", "http://shop.test:80/p/2"];
    expect(previewEstimate(read, true)).to.deep.equal({ complete: true, pages: 2, credits: 2 });
    expect(previewEstimate(read, false)).to.deep.equal({ complete: false, pages: null, credits: null });
  });
});
