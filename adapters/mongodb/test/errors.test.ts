import { Conflict, StorageFailure } from "@gleaner/core";
import { expect } from "chai";
import { describe, it } from "mocha";
import { MongoBulkWriteError, MongoServerError } from "mongodb";
import {
  ConflictSignal,
  classifyFailure,
  conflicts,
  databaseName,
  describeTarget,
  duplicateKeyIndex,
  isDuplicateKey,
  replicaSetProblem,
} from "../src/errors.js";

/** A duplicate key error as the server reports it (message format of E11000, code 11000). */
const duplicateKey = (index: string) =>
  new MongoServerError({
    message: `E11000 duplicate key error collection: gleaner.runs index: ${index} dup key: { datasetId: UUID("…") }`,
    errmsg: `E11000 duplicate key error collection: gleaner.runs index: ${index} dup key: { datasetId: UUID("…") }`,
    code: 11000,
    keyPattern: { datasetId: 1 },
  });

describe("mongodb: errors", () => {
  it("names the unique index a duplicate key error violated", () => {
    expect(duplicateKeyIndex(duplicateKey("runs_one_active_per_dataset"))).to.equal("runs_one_active_per_dataset");
    expect(isDuplicateKey(duplicateKey("x"))).to.equal(true);
    expect(duplicateKeyIndex(new MongoServerError({ message: "WriteConflict", code: 112 }))).to.equal(undefined);
    expect(isDuplicateKey(new Error("E11000 duplicate key error … index: x dup key"))).to.equal(false);
  });

  it("finds the index in a bulk write's first write error", () => {
    const bulk = new MongoBulkWriteError(
      {
        message:
          "E11000 duplicate key error collection: gleaner.revisions index: revisions_dataset_request dup key: {}",
        code: 11000,
        writeErrors: [
          {
            code: 11000,
            errmsg:
              "E11000 duplicate key error collection: gleaner.revisions index: revisions_dataset_request dup key: {}",
            index: 0,
          } as never,
        ],
      },
      {} as never,
    );
    expect(duplicateKeyIndex(bulk)).to.equal("revisions_dataset_request");
  });

  it("maps a duplicate key on a named index to that Conflict, anything else to StorageFailure", () => {
    const classify = classifyFailure("insertRun", { runs_one_active_per_dataset: conflicts.runInProgress });
    const conflict = classify(duplicateKey("runs_one_active_per_dataset"));
    expect(conflict).to.be.instanceOf(Conflict);
    expect(conflict).to.include({ code: "run_in_progress" });

    const other = classify(duplicateKey("_id_"));
    expect(other).to.be.instanceOf(StorageFailure);
    expect(other.message).to.match(/^MongoDB: insertRun failed: E11000/);

    const signalled = classify(new ConflictSignal(conflicts.staleRevision()));
    expect(signalled).to.include({ code: "stale_revision" });
  });

  it("repeats the memory store's conflict messages", () => {
    expect(conflicts.nameTaken("Books").message).to.equal('You already have a dataset named "Books".');
    expect(conflicts.ownerExists("dev").message).to.equal('An owner named "dev" exists.');
    expect(conflicts.staleDataset().code).to.equal("stale_dataset");
    expect(conflicts.duplicateRequest().code).to.equal("duplicate_request");
  });
});

describe("mongodb: configuration", () => {
  it("describes a target without its credentials", () => {
    expect(describeTarget("mongodb://gleaner:s3cret@mongo-1:27017,mongo-2:27017/gleaner?replicaSet=rs0")).to.equal(
      "mongodb://mongo-1:27017,mongo-2:27017/gleaner",
    );
    expect(describeTarget("mongodb+srv://u:p@cluster0.example.net/?retryWrites=true")).to.equal(
      "mongodb+srv://cluster0.example.net",
    );
    expect(describeTarget("postgres://x@y/z")).to.match(/not a mongodb:\/\//);
  });

  it("takes the database from the configuration, else the URL's path, else gleaner", () => {
    expect(databaseName("mongodb://h/fromurl?replicaSet=rs0", "configured")).to.equal("configured");
    expect(databaseName("mongodb://u:p@h1,h2/fromurl?replicaSet=rs0", undefined)).to.equal("fromurl");
    expect(databaseName("mongodb://h:27017/?replicaSet=rs0", undefined)).to.equal("gleaner");
    expect(databaseName("mongodb://h:27017", undefined)).to.equal("gleaner");
  });

  it("accepts a replica set member or a mongos and refuses a standalone server with a clear message", () => {
    expect(replicaSetProblem({ setName: "rs0" }, "mongodb://h")).to.equal(null);
    expect(replicaSetProblem({ msg: "isdbgrid" }, "mongodb://h")).to.equal(null);
    const problem = replicaSetProblem({ isWritablePrimary: true } as never, "mongodb://h:27017");
    expect(problem).to.match(/standalone/);
    expect(problem).to.match(/GLEANER_MONGODB_URL/);
    expect(problem).to.match(/replica set/);
  });
});
