// The library entry of svc: the client of the service, its wire schemas, amounts
// and notification signatures, for scripts that `import` instead of shelling out.
export {
  Client,
  createClient,
  checkBaseUrl,
  InsecureBaseUrlError,
  type ClientOptions,
  type ApiResponse,
  type CobroFilters,
  type TransaccionFilters,
} from './api/client.js';
export {
  ApiError,
  UnauthorizedError,
  ComercioNoListoError,
  NotFoundError,
  RefusedError,
  serviceError,
  NetworkError,
  type NetworkFailure,
} from './api/service-errors.js';
// Every error the library throws extends SvcError: its exitCode and code are the CLI's.
export { EXIT, SvcError } from './errors.js';
export {
  Network,
  networkFromEnv,
  bypassesProxy,
  ProxyError,
  type NetworkSettings,
  type ProxyRoute,
  type CaSetting,
} from './api/network.js';
export { ItemList } from './api/list.js';
export * from './api/schemas.js';
export {
  API,
  RESOURCES,
  requestSchema,
  strictReply,
  pathOf,
  type Endpoint,
  type EndpointName,
  type CrearCobroInput,
  type DevolucionInput,
} from './api/contract.js';
export {
  sign,
  signatureHeader,
  verify,
  notificationHeaders,
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyResult,
} from './webhooks/signature.js';
export {
  parseAmount,
  parsePositiveAmount,
  formatCents,
  normalizeAmount,
  sumAmounts,
  percentOf,
  AmountError,
} from './domain/money.js';
