/** The part of autocannon 8's programmatic API the benchmark uses (the package ships no types). */
declare module "autocannon" {
  export interface RequestParams {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
  }

  export interface Request extends RequestParams {
    setupRequest?: (request: RequestParams & { headers: Record<string, string> }, context: object) => RequestParams
  }

  export interface Options {
    url: string
    connections?: number
    duration?: number
    timeout?: number
    pipelining?: number
    method?: string
    headers?: Record<string, string>
    requests?: ReadonlyArray<Request>
  }

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p90: number
    p99: number
    p99_9: number
    sent?: number
  }

  export interface Result {
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    resets: number
    "2xx": number
    "4xx": number
    "5xx": number
    statusCodeStats: Record<string, { count: number }>
    latency: Histogram
    requests: Histogram
    throughput: Histogram
  }

  /** A running load: awaitable for its result, and stoppable. */
  export interface Instance extends PromiseLike<Result> {
    stop(): void
  }

  function autocannon(options: Options): Instance
  export default autocannon
}
