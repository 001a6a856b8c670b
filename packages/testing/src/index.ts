export * as Arbitraries from "./Arbitraries.js"
export * as Models from "./Models.js"
