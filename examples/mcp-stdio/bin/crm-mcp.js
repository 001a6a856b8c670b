#!/usr/bin/env node
// The sources are TypeScript; tsx compiles them on load so `npx crm-mcp` works straight after `npm install`.
import { register } from "tsx/esm/api"

register()
const { main } = await import("../src/main.ts")
main()
