# syntax=docker/dockerfile:1

# --- build: compile TypeScript with the dev dependencies ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the prepare script builds, and the sources are not copied yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- runtime: production dependencies, compiled code, non-root ---
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config ./config
# `connector` on PATH, and `npx connector` runs it from node_modules/.bin. The package's own
# `bin` entry goes: with it, npx would install the project into its cache to run the bin,
# running the prepare script (a TypeScript build) as the unprivileged user.
RUN ln -s ../../dist/main/cli.js node_modules/.bin/connector && npm pkg delete bin
ENV PATH=/app/node_modules/.bin:$PATH
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node directly (not npm) so SIGTERM reaches the process and shutdown is graceful.
CMD ["node", "dist/main/server.js"]
