export { type Clock, type ManualClock, manualClock, systemClock } from "./clock";
export type { Fault, FaultRule, FaultRuleInput, SimRoute } from "./faults";
export type { JobSpec, JobTimings, SimJob, SimOutcome, SimProvider } from "./jobs";
export { type RunningSimulator, type SimulatorOptions, startSimulator } from "./server";
export type { RequestLogEntry, SimulatorState } from "./state";
