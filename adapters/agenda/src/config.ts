/** Settings shared by both backends. Every duration is in milliseconds. */
export interface AgendaTuning {
  /**
   * How long a job stays locked without a touch before another worker may take it over. Jobs in
   * flight are touched every third of it, so it bounds how long a killed worker's jobs wait,
   * not how long a run may take. Default 60 s.
   */
  readonly lockLifetimeMs?: number;
  /** Polling interval (Agenda's processEvery), e.g. "5 seconds" or a number of ms. Default "5 seconds". */
  readonly processEvery?: string | number;
  /**
   * Jobs one process may hold locked at once (Agenda's lockLimit). Default: the consumer's
   * concurrency plus the routine slots, so a worker never sits on jobs it cannot start.
   */
  readonly lockLimit?: number;
  /**
   * A routine occurrence picked up later than this after it was due is dropped, not fired: after
   * downtime a schedule resumes at its next occurrence instead of replaying a missed one.
   * Default 60 s.
   */
  readonly staleTickMs?: number;
  /** Names this process in Agenda's lastModifiedBy column (default gleaner-<host>-<pid>). */
  readonly instanceName?: string;
}

export interface AgendaPostgresConfig extends AgendaTuning {
  readonly backend: "postgres";
  /** libpq connection URL. */
  readonly url: string;
  /** The PostgreSQL schema holding the jobs table (default "gleaner", the store's own). */
  readonly schema?: string;
  /** Jobs table (default "agenda_jobs"); also names the LISTEN/NOTIFY channel. */
  readonly tableName?: string;
  /**
   * Create the schema, table and indexes on start (default true). It runs under an advisory lock,
   * so any number of processes may start at once; pass false when a migration step owns it.
   */
  readonly ensureSchema?: boolean;
  /** Connections in Agenda's pool (default 5; one more is held for LISTEN). */
  readonly poolSize?: number;
}

export interface AgendaMongoConfig extends AgendaTuning {
  readonly backend: "mongodb";
  /** mongodb:// connection string (the database is the one named in its path). */
  readonly url: string;
  /** Jobs collection (default "agendaJobs"). */
  readonly collection?: string;
  /** Create the collection's indexes on start (default true; idempotent in MongoDB). */
  readonly ensureSchema?: boolean;
}

export type AgendaQueueConfig = AgendaPostgresConfig | AgendaMongoConfig;

export const defaults = {
  lockLifetimeMs: 60_000,
  processEvery: "5 seconds",
  staleTickMs: 60_000,
  routineConcurrency: 4,
} as const;
