export { PostgresStoreLive, type PostgresConfig } from "./layer.js";
export {
  applyMigrations,
  assertSchemaName,
  bundledMigrationsDir,
  loadMigrations,
  type Migration,
  type MigrationReport,
} from "./migrate.js";
