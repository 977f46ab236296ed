// The typed API client shared by the runner, the CLI, the web app and the tests.
// Browser-safe: global fetch only, no Node modules.
export { ShopfloorClient } from './api.ts'
export { followEvents, RECONNECT_DELAYS_MS, type StreamOptions } from './events.ts'
export {
  ApiError,
  type ClientOptions,
  type Credentials,
  DEFAULT_RETRY,
  HttpClient,
  NetworkError,
  type RetryOptions,
  type TokenPair,
} from './http.ts'
export type * from './types.ts'
export { TASK_PRIORITIES, TASK_STATUSES } from './types.ts'
