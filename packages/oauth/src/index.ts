export * as Consent from "./Consent.js"
export * as OAuth from "./OAuth.js"
export * as Provider from "./Provider.js"
