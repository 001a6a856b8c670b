# The CRM server as a container image: built JavaScript only, run as the unprivileged `node` user.
# See docs/hosting.md, "Run in a container":
#
#   docker build -t crm .
#   docker run --rm -p 3000:3000 -v crm-data:/data -e CRM_ADMIN_TOKEN=... crm    # PGlite in the volume
#   docker compose up --build                                                    # with PostgreSQL
#
# Plain Dockerfile syntax (no `# syntax=` line, no cache mounts): it builds with the legacy builder
# too, and needs nothing but the base image and the npm registry.

ARG NODE_IMAGE=node:20-bookworm-slim

# Build: every dependency from the lock file, then the root `prepare` script (`npm run build`)
# bundles examples/server and examples/mcp-stdio with tsup, migrates the PGlite template the
# server starts new data directories from, and writes the OpenAPI document beside the bundle.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --no-audit --no-fund
# The runtime's files, laid out as in the repository: the bundle and what it reads from
# node_modules at run time (the packages tsup leaves external and their production dependencies,
# Redoc's standalone bundle, the PDFs' fonts, the /admin page), about 110 MB of the 450 the build
# installs.
# Readable by everyone: the runtime runs as `node`, and PGlite writes the data files of the template
# new data directories are copied from with mode 0600 (a template it cannot read, it would initdb).
RUN node --import tsx examples/server/scripts/runtimeFiles.ts /runtime && chmod -R a+rX /runtime

FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=build /runtime ./
# PGlite's data directory is a subdirectory of the volume: a new one is copied from the template
# beside it and renamed into place, which a mount point itself cannot be.
RUN mkdir /data && chown node:node /data
USER node
ENV HOST=0.0.0.0 \
    PORT=3000 \
    CRM_DATA_DIR=/data/pglite
VOLUME ["/data"]
EXPOSE 3000
# Liveness only (/healthz answers without the store); /readyz is for a load balancer to ask.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `docker run IMAGE migrate` (or `openapi`) runs another crm command in place of `serve`. The V8
# options are npm start's (package.json; why in examples/server/bin/crm.js).
ENTRYPOINT ["node", "--max-semi-space-size=32", "--heap-growing-percent=50", "examples/server/bin/crm.js"]
CMD ["serve"]
