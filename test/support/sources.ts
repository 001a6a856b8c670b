/**
 * Node's arguments for running a file of the workspace from its TypeScript sources, as the tests
 * do: the packages resolved through their `@crm/source` export condition, compiled by tsx.
 */
export const RUN_SOURCES: ReadonlyArray<string> = ["--conditions=@crm/source", "--import", "tsx"]
