/** Money: currencies with their minor units, and exact decimal amounts. */
export * from "./Money/Amount.js"
export * from "./Money/Currency.js"
