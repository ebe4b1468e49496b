/** Agenda job names: one for run jobs, one for every routine (told apart by data.datasetId). */
export const runJob = "gleaner-run";
export const routineJob = "gleaner-routine";
