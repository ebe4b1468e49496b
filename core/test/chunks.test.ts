import { expect } from "chai";
import {
  chunkCharsFor,
  chunkSubject,
  outputTokensFor,
  parseChunkSubject,
  splitIntoChunks,
} from "../src/engine/research/chunks.js";

// Long pages in chunks within the model's context (issue 34): every character sent once, cut between
// lines, each chunk within the budget; subjects name the part so a run's answers replay.

describe("research page chunks", () => {
  it("sizes chunks from the context window: an 8k model gets ~15,000 characters and 2,048 answer tokens", () => {
    expect(outputTokensFor(8192)).to.equal(2048);
    expect(chunkCharsFor(8192)).to.equal((8192 - 2048 - 1000) * 3);
    expect(chunkCharsFor(128_000)).to.be.above(chunkCharsFor(8192));
    expect(chunkCharsFor(2048)).to.equal(2_000);
  });

  it("cuts between lines, keeps every line, and stays within the budget", () => {
    const lines = Array.from(
      { length: 400 },
      (_, i) => `Company ${i} | founded ${1900 + (i % 100)} | ${"x".repeat(i % 60)}`,
    );
    const text = lines.join("\n");
    const chunks = splitIntoChunks(text, 2_000);
    expect(chunks.length).to.be.above(5);
    for (const chunk of chunks) expect(chunk.length).to.be.at.most(2_000);
    expect(chunks.join("\n")).to.equal(text);
  });

  it("cuts a line longer than a chunk between words, losing nothing but the space", () => {
    const words = Array.from({ length: 1000 }, (_, i) => `word${i}`).join(" ");
    const chunks = splitIntoChunks(words, 500);
    for (const chunk of chunks) expect(chunk.length).to.be.at.most(500);
    expect(chunks.join(" ")).to.equal(words);
  });

  it("cuts a block longer than a chunk between its <br> lines before cutting between words", () => {
    const cards = Array.from({ length: 60 }, (_, i) => `Museum ${i} opened in ${1900 + i}`).join("\u2028");
    const chunks = splitIntoChunks(cards, 500);
    for (const chunk of chunks) {
      expect(chunk.length).to.be.at.most(500);
      expect(chunk).to.match(/^Museum \d+ opened in \d{4}(\u2028Museum \d+ opened in \d{4})*$/);
    }
    expect(chunks.join("\u2028")).to.equal(cards);
  });

  it("names a part only when a page took more than one", () => {
    expect(chunkSubject("https://a.test/p", 1, 1)).to.equal("https://a.test/p");
    expect(chunkSubject("https://a.test/p", 2, 3)).to.equal("https://a.test/p#part=2/3");
    expect(parseChunkSubject("https://a.test/p#part=2/3")).to.deep.equal({ url: "https://a.test/p", part: 2 });
    expect(parseChunkSubject("https://a.test/p")).to.deep.equal({ url: "https://a.test/p", part: 1 });
  });
});
