export * as MailTransports from "./MailTransports.js"
export * as Server from "./Server.js"
export * as Storage from "./Storage.js"
export * as WebhookSender from "./WebhookSender.js"
