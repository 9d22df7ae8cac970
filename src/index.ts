/**
 * The package's public API, for Node programs: the collection's items or pages
 * ({@link collection}, {@link collectionPages}), a whole export ({@link exportCollection}) and the
 * bundled sandbox for tests ({@link startSandbox}), with the errors they throw. The command line
 * is built on the same engine: the same pacing, waits, retries, origin rule, loop guards,
 * destinations and exit codes (README, "Use from Node"; docs/library.md).
 * @packageDocumentation
 */
export { collection, collectionPages, sourceText, type CollectionOptions, type CollectionPage, type JsonValue } from './library/collection.js';
export { exportCollection, type ExportCollectionOptions, type ExportSummary } from './library/export.js';
export { startSandbox, type RunningSandbox, type StartSandboxOptions } from './library/sandbox.js';
export type { BudgetEvent, CollectionEvent, ModeEvent, PageEvent } from './library/events.js';
export type { ConnectionOptions, PagingOptions, Params } from './library/options.js';
export { JsonNumber, writeJson } from './json/json-value.js';
export {
  AbortError,
  ApiUnavailableError,
  CollectionsError,
  EXIT_CODE_OF,
  ExitCode,
  HostileResponseError,
  HttpError,
  InterruptedError,
  OutputError,
  RateLimitError,
  UnsafeLinkError,
  UsageError,
  VerifyError,
  type CollectionsErrorOptions,
  type ErrorCode,
  type HttpErrorDetails,
  type RateLimitErrorOptions,
  type UsageErrorOptions,
} from './errors.js';
export type { ClientEvent, RateLimitSnapshot } from './http/client.js';
export type { Clock } from './time/clock.js';
export type { FetchLike, OutputStream } from './context.js';
export type { OutputFormat } from './format-names.js';
