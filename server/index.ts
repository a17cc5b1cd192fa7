// Public surface of the reference server (tests, benchmarks, demos).
export { startReferenceServer, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, MAX_BODY_BYTES } from './httpServer';
export type { NativeAuth, ReferenceServer, ReferenceServerOptions, ServerStats } from './httpServer';
export { ManualClock, systemClock, DEFAULT_MANUAL_START } from './clock';
export type { Clock } from './clock';
export { CatalogIndex, CatalogError, defaultCatalog, deriveUuid, flowNameFromFile, isUuid, loadCatalogFile, validateCatalog } from './catalog';
export type { Catalog, CatalogFlow, Outcome, ResolvedFlow } from './catalog';
export { DEFAULT_MAX_JOBS, DEFAULT_MAX_QUEUED, JobStore, LIST_CAP, QueueFullError } from './jobStore';
export type { ExecutionStatus, JobParameter, JobStatus, ListFilter, StoredJob } from './jobStore';
export { buildJobLog, escapeCell, planNodes } from './jobLog';
export { formatElapsed, formatRuntime, formatSeconds, formatTimestamp } from './formats';
export { bodyText, FIELD_LIMITS, handleNative, LIST_MAX_BYTES } from './nativeRoutes';
export type { FlowRef, NativeContext, NativeRequest, NativeResponse, StatusFilterForm } from './nativeRoutes';
export { handleRelay, parseEndpoint, RELAY_401 } from './relay';
export { FaultInjector, faultAnswer } from './faults';
export type { AppliedFault, Fault, FaultKind, FaultRequest } from './faults';
export { DataFileError, loadDataFile, removeLeftoverTempFiles } from './persistence';
export { parseArgs, runCli, USAGE } from './main';
export { mulberry32 } from './random';
