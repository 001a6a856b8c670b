/** The API key's id, declared in the base beside the actor that carries it. */
export { KeyId } from "../Organisation.js"
