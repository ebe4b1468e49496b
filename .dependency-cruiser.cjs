/**
 * The dependency rule of DESIGN.md, enforced in CI (`npm run lint`):
 * core imports no framework, driver, DOM library or DI container; an adapter imports core and its
 * own driver, never another adapter or a host; only the host knows inversify. And no module imports
 * itself through others, not even for a type: a cycle is a knot the next reader has to untie.
 */
module.exports = {
  forbidden: [
    {
      name: "core-stays-framework-agnostic",
      comment: "core imports no framework, driver, DOM library or DI container",
      severity: "error",
      from: { path: "^core/src" },
      to: {
        dependencyTypes: ["npm", "npm-dev", "npm-peer", "npm-optional", "npm-no-pkg", "npm-unknown"],
        pathNot: "node_modules/(effect|css-what|ipaddr\\.js|robots-parser|cron-parser|html-encoding-sniffer)/",
      },
    },
    {
      name: "core-imports-no-workspace-package",
      severity: "error",
      from: { path: "^core/src" },
      to: { path: "^(adapters|hosts|conformance)/" },
    },
    {
      name: "adapters-import-only-core",
      comment: "an adapter never imports another adapter or a host",
      severity: "error",
      from: { path: "^adapters/([^/]+)/src" },
      to: { path: "^(adapters/(?!$1/)[^/]+/|hosts/|conformance/)" },
    },
    {
      name: "no-circular",
      comment: "no import cycle, type-only ones included: move the shared type to a module of its own",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "only-the-host-knows-inversify",
      severity: "error",
      from: { pathNot: "^hosts/" },
      to: { path: "node_modules/(inversify|@inversifyjs/|reflect-metadata)" },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "/dist/"] },
    exclude: { path: "^(core|adapters/[^/]+|hosts/[^/]+|conformance)/test/" },
    tsConfig: { fileName: "tsconfig.base.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "types", "default"] },
  },
};
