import { Kernel } from "@crm/core"
import * as StorageMemory from "@crm/storage-memory"
import { Effect, Layer } from "effect"
import { program } from "./program.js"

// Every service of the kernel over one new in-memory store.
Effect.runPromise(Effect.provide(program, Kernel.layer.pipe(Layer.provide(StorageMemory.layer))))
