/**
 * What makes a product consistent, as pure rules: prices within the currency's minor unit,
 * variants that use the product's own options, and stock that never silently disappears when
 * variants are replaced.
 */
import * as Either from "effect/Either"
import { ValidationFailed, type ValidationIssue } from "../Errors.js"
import { precisionIssues } from "../Money/Currency.js"
import type { VariantId } from "./ProductIds.js"
import type { Product, Variant, VariantInput } from "./ProductSchemas.js"
import { aggregate, type Level } from "./StockLedger.js"

const issue = (path: string, message: string, code = "invalid"): ValidationIssue => ({ path, message, code })

const refuse = (issues: ReadonlyArray<ValidationIssue>) => new ValidationFailed({ detail: issues })

const variantIssues = (product: Product, variant: Variant, i: number): ReadonlyArray<ValidationIssue> => {
  const path = `variants.${i}.options`
  const names = product.options.map((option) => option.name)
  const given = Object.keys(variant.options)
  const missing = names.filter((name) => !given.includes(name))
  return [
    ...precisionIssues(`variants.${i}.unit_price`, variant.unit_price, product.currency),
    ...missing.map((name) => issue(`${path}.${name}`, "a value for each of the product's options is required")),
    ...given.flatMap((name) => {
      const option = product.options.find((candidate) => candidate.name === name)
      if (option === undefined) return [issue(`${path}.${name}`, "not an option of the product", "unknown_option")]
      const value = variant.options[name]!
      return option.values.includes(value)
        ? []
        : [issue(`${path}.${name}`, `must be one of ${option.values.join(", ")}`, "unknown_option_value")]
    })
  ]
}

/** Two variants with the same options, or the same SKU, could not be told apart. */
const duplicateIssues = (variants: ReadonlyArray<Variant>): ReadonlyArray<ValidationIssue> => {
  const combinations = new Set<string>()
  const skus = new Set<string>()
  return variants.flatMap((variant, i) => {
    const combination = JSON.stringify(Object.entries(variant.options).sort(([a], [b]) => (a < b ? -1 : 1)))
    const found: Array<ValidationIssue> = []
    if (combinations.has(combination)) found.push(issue(`variants.${i}.options`, "another variant has these options"))
    if (variant.sku !== null && skus.has(variant.sku)) found.push(issue(`variants.${i}.sku`, "another variant has it"))
    combinations.add(combination)
    if (variant.sku !== null) skus.add(variant.sku)
    return found
  })
}

export const check = (product: Product): Either.Either<Product, ValidationFailed> => {
  const issues = [
    ...precisionIssues("unit_price", product.unit_price, product.currency),
    ...(product.options.length === 0 && product.variants.length > 0
      ? [issue("variants", "a product without options has no variants")]
      : product.variants.flatMap((variant, i) => variantIssues(product, variant, i))),
    ...duplicateIssues(product.variants)
  ]
  return issues.length === 0 ? Either.right(product) : Either.left(refuse(issues))
}

/**
 * The variants a request asks for. A variant sent with an id must be one the product has and
 * keeps it (with its stock); one without an id is new and starts untracked.
 */
export const variantsFrom = (
  current: ReadonlyArray<Variant>,
  inputs: ReadonlyArray<VariantInput>,
  newId: () => VariantId
): Either.Either<ReadonlyArray<Variant>, ValidationFailed> => {
  const seen = new Set<string>()
  const issues: Array<ValidationIssue> = []
  const variants = inputs.map((input, i): Variant => {
    const kept = input.id === undefined ? undefined : current.find((variant) => variant.id === input.id)
    if (input.id !== undefined && (kept === undefined || seen.has(input.id))) {
      issues.push(issue(`variants.${i}.id`, "not a variant of this product (or sent twice)", "unknown_reference"))
    }
    if (input.id !== undefined) seen.add(input.id)
    return {
      id: kept?.id ?? newId(),
      sku: input.sku ?? null,
      options: input.options,
      unit_price: input.unit_price ?? null,
      stock: kept?.stock ?? null
    }
  })
  return issues.length === 0 ? Either.right(variants) : Either.left(refuse(issues))
}

/** The stock items of a product: each variant once it has options, else the product itself. */
export const items = (product: Product): ReadonlyArray<{ readonly key: string; readonly level: Level }> =>
  product.options.length === 0
    ? [{ key: product.id, level: product.stock }]
    : product.variants.map((variant) => ({ key: variant.id, level: variant.stock }))

/** The product with its stock fields read from `levels` (by item key; a missing one is untracked). */
export const withLevels = (product: Product, levels: ReadonlyMap<string, Level>): Product => {
  const variants = product.variants.map((variant) => ({ ...variant, stock: levels.get(variant.id) ?? null }))
  return {
    ...product,
    variants,
    stock:
      product.options.length === 0
        ? (levels.get(product.id) ?? null)
        : aggregate(variants.map((variant) => variant.stock))
  }
}

/** The product with one item's level changed (and, over variants, the product's total with it). */
export const withLevel = (product: Product, key: string, level: Level): Product =>
  withLevels(product, new Map(items(product).map((item) => [item.key, item.key === key ? level : item.level])))

/** `next` with the levels its items already hold in `current`; items new to it are untracked. */
export const carryStock = (current: Product, next: Product): Product =>
  withLevels(next, new Map(items(current).map((item) => [item.key, item.level])))

/**
 * Replacing variants (or switching between a product with and without variants) must not drop
 * stock on the floor: an item that goes away has to be counted to 0 or untracked first.
 */
export const checkNothingDropped = (current: Product, next: Product): Either.Either<void, ValidationFailed> => {
  const remaining = new Set(items(next).map((item) => item.key))
  const dropped = items(current).filter((item) => !remaining.has(item.key) && item.level !== null && item.level !== 0)
  if (dropped.length === 0) return Either.void
  return Either.left(
    refuse(
      dropped.map((item) =>
        item.key === current.id
          ? issue("options", `the product holds ${item.level} in stock; count it to 0 or null first`, "holds_stock")
          : issue(
              "variants",
              `variant ${item.key} holds ${item.level} in stock; count it to 0 or null first`,
              "holds_stock"
            )
      )
    )
  )
}
