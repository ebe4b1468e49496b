// Gleaner targets Node 24 LTS. npm scripts run on the `node` devDependency's binary; a shell that
// calls a bin directly would still run the machine's Node, so fail fast with a hint instead of
// crashing later inside jsdom or undici.
const [major] = process.versions.node.split(".").map(Number);
if (major < 24) {
  console.error(
    `Gleaner needs Node 24 or newer; this is Node ${process.versions.node}. ` +
      "Run it through npm (npm test, npm start, npx gleaner) so the project's own Node 24 is used.",
  );
  process.exit(1);
}
