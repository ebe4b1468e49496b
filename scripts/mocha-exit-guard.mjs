// A test suite that has finished must end. Something left open (a server, a browser, a socket)
// would otherwise keep `npm test` alive until CI kills it, with no word about what was left.
// After the last test this waits a while for Node to drain on its own, then names what is still
// open and exits with a failure: a leak is a defect, and it should read as one.
const GRACE_MS = Number(process.env.GLEANER_TEST_EXIT_GRACE_MS ?? 60_000);

export const mochaHooks = {
  afterAll() {
    const timer = setTimeout(() => {
      console.error(
        `\nThe tests finished ${GRACE_MS / 1000} s ago but the process is still held open by: ` +
          `${process.getActiveResourcesInfo().join(", ") || "nothing Node can name"}. Exiting with failure.`,
      );
      // Mocha sets the exit code from the test results in its own 'exit' listener; this one runs after it.
      process.on("exit", () => {
        process.exitCode = 1;
      });
      process.exit(1);
    }, GRACE_MS);
    // Unreferenced: when nothing else is open, the process ends without waiting for this timer.
    timer.unref();
  },
};
