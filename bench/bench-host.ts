// What every bench's Gleaner host has in common (imports nothing, so a child loads only the host).

/** The host config of a bench: loopback, silent, the fixture site allowed, one worker. */
export const benchHostConfig = {
  port: 0,
  host: "127.0.0.1",
  logLevel: "silent",
  allowPrivateTargets: ["127.0.0.1/32"],
  // A benchmark owner runs far more than a tenant may: lift the per-owner limits.
  ownerLimits: { maxActiveRuns: 1_000, maxRunsPerHour: 1_000_000, maxDatasets: 1_000_000 },
  workerConcurrency: 1,
} as const;
