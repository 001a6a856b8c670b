export * as McpServer from "./McpServer.js"
export * from "./Tool.js"
export { assertUniqueNames, tools } from "./Tools.js"
