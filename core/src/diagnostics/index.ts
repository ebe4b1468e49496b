export { type DiagnosticsAsked, diagnoseRun } from "./diagnose.js";
export { resolveField } from "./entity.js";
export { DiagnosticsQuery, getDiagnostics } from "./get-diagnostics.js";
export { type RunRecording, type Stage, stages } from "./model.js";
