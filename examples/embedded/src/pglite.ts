import { Kernel } from "@crm/core"
import * as StoragePg from "@crm/storage-pg"
import { Effect, Layer } from "effect"
import { program } from "./program.js"

// The same program on PGlite in a directory: migrated on first open, kept between runs.
const storage = StoragePg.layerPglite({ dataDir: process.argv[2] ?? "./crm-data" })
Effect.runPromise(Effect.provide(program, Kernel.layer.pipe(Layer.provide(storage))))
