/** A durable store's connection pool as an operator watches it: read at each metrics scrape. */
export interface ConnectionPoolState {
  /** Connections open, in use or idle. */
  readonly open: number;
  readonly idle: number;
  /** Requests waiting for a connection. */
  readonly waiting: number;
  /**
   * Since the store started: connections lost while idle, and statements or connection attempts that
   * failed because the database could not be reached or answered too late (never a conflict a
   * request caused).
   */
  readonly errors: number;
}

export interface StoreConnections {
  /** Optional: a store without a connection pool (the memory store) leaves it out. */
  readonly connectionPool?: () => ConnectionPoolState;
}
