export * as Pages from "./Pages.js"
