import { expect } from "chai";
import { describe, it } from "mocha";
import { PreviewWindow } from "../../src/usecases/preview-limits.js";

describe("preview limits: a minute's window per owner", () => {
  it("allows perMinute previews, then answers the seconds until the oldest leaves the window", () => {
    const window = new PreviewWindow({ perMinute: 3 });
    expect(window.take("a", 0)).to.equal(null);
    expect(window.take("a", 10_000)).to.equal(null);
    expect(window.take("a", 20_000)).to.equal(null);
    expect(window.take("a", 30_000)).to.equal(30);
    // Another owner is counted apart.
    expect(window.take("b", 30_000)).to.equal(null);
    // The first preview has left the window: one more may be asked.
    expect(window.take("a", 60_001)).to.equal(null);
    expect(window.take("a", 60_002)).to.equal(10);
  });

  it("forgets owners with nothing in the window, so it is bounded by the owners of the last minute", () => {
    const window = new PreviewWindow({ perMinute: 5 });
    for (let i = 0; i < 5000; i++) window.take(`owner-${i}`, i * 100);
    // 5000 owners over 500 s: only those of the last minute (and what one sweep lets through) remain.
    expect(window.owners).to.be.below(1700);
  });
});
