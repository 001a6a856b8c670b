// The provider's module (oidc-provider and Koa under it) is not exported: `OAuth.make` loads it at
// its first use, so that a server that never authorizes an assistant never loads it.
export * as OAuth from "./OAuth.js"
