export * as Server from "./Server.js"
export * as Storage from "./Storage.js"
