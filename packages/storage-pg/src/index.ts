export * as DataDirLock from "./DataDirLock.js"
export { emptying } from "./Emptying.js"
export { migrate, migrations } from "./Migrations.js"
export * as PgliteClient from "./PgliteClient.js"
export {
  DEFAULT_POOL_SIZE,
  DEFAULT_STANDBY_MAX_LAG_MS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  type LayerOptions,
  layer,
  layerFor,
  layerPglite,
  layerServer,
  layerWith,
  type PgliteOptions,
  type Pooler,
  type Ports,
  pgliteTemplate,
  type ServerOptions,
  type Statements
} from "./Storage.js"
