# The image's one Node version: a current LTS line (CI runs the tests on it too). Change it here.
ARG NODE_VERSION=24

# --- build: compile TypeScript with the dev dependencies ---
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the prepare script builds, and the sources are not copied yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- runtime: production dependencies only, compiled code, a numeric non-root user ---
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG NODE_VERSION
LABEL org.opencontainers.image.title="checkout-connector" \
      org.opencontainers.image.description="Connects an ERP and a payment provider to the Cortecloud platform: hosted checkout, reliable finish/cancel delivery, ERP sync." \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.base.name="node:${NODE_VERSION}-bookworm-slim"
ENV NODE_ENV=production
# A heap limit: without one, V8 on a large host lets garbage grow a busy worker's memory to
# 200 MB and more although its live heap stays under 60 MB (BENCHMARKS.md, the ERP sync). A
# young generation of 32 MB a half, not 16: a busy route's garbage is collected half as often.
# The api's manifests raise it to 48 MB (docs/operating.md, "Processes, memory, crashes and
# shutdown"); a worker's peak stays under 200 MB with 32.
ENV NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=32"
WORKDIR /app
COPY package.json package-lock.json ./
# typescript comes in as an optional peer of valibot (bull-board's); nothing needs it at run
# time, and npm installs it even with --omit=dev (the lock marks it dev-or-optional).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force \
  && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver
COPY --from=build /app/dist ./dist
COPY config ./config
# `connector` on PATH, and `npx connector` runs it from node_modules/.bin. The package's own
# `bin` entry goes: with it, npx would install the project into its cache to run the bin,
# running the prepare script (a TypeScript build) as the unprivileged user.
RUN ln -s ../../dist/main/cli.js node_modules/.bin/connector && npm pkg delete bin
ENV PATH=/app/node_modules/.bin:$PATH
# npx and npm keep a cache: under /tmp, so the root filesystem can be read-only.
ENV npm_config_cache=/tmp/.npm
# Numeric, so Kubernetes' runAsNonRoot can check it (the node user of the base image).
USER 1000:1000
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node directly (not npm), so SIGTERM reaches the process and shutdown is graceful. Run it under
# an init that reaps and forwards signals: `docker run --init`, compose `init: true`.
CMD ["node", "dist/main/server.js"]
