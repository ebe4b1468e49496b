import { expect } from "chai";
import { describeModelFailure } from "../src/engine/research/ask.js";
import { ModelNotFound, ModelServerFailed, ModelTimeout } from "../src/ports/language-model.js";

// A research run's `error` names the model's failure as what it is (issue 34): a failing server is
// not a slow one, and an unknown model points at the setting to fix.
describe("model failures in a run's words", () => {
  it("says a server answering 5xx failed, with its status, not that it was slow", () => {
    expect(describeModelFailure(new ModelServerFailed({ message: "x", status: 503 }))).to.equal(
      "the model server failed (HTTP 503)",
    );
    expect(describeModelFailure(new ModelTimeout({ message: "x" }))).to.equal("the model did not answer in time");
  });

  it("says an unknown model is unknown and names GLEANER_MODEL_NAME", () => {
    const said = describeModelFailure(new ModelNotFound({ message: "x", model: "llama9:1b" }));
    expect(said).to.contain('"llama9:1b"').and.to.contain("GLEANER_MODEL_NAME");
  });
});
