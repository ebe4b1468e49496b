/** The line a bench child prints once it serves (followed by JSON). */
export const READY_MARKER = "READY ";
