/** Agenda job names: one for run jobs, one for every routine (told apart by data.datasetId), one for webhook deliveries. */
export const runJob = "gleaner-run";
export const routineJob = "gleaner-routine";
export const webhookJob = "gleaner-webhooks";
