# Shopfloor in a container: the API server (default), or any other process of the one executable
# (`scheduler`, `runner ...`, `admin ...`) given as the command. docs/deploy.md walks through it.
#   docker build -t shopfloor .
#   docker run -p 8000:8000 -e JWT_SECRET_KEY=... -e DATABASE_URL=postgres://... shopfloor

# --- build: dependencies, the web app, the compiled server ----------------------------------
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The web app (Vite, into web/dist) and the server's compiled program (node_modules/.cache/shopfloor),
# so that the container starts without compiling anything.
RUN npm run build:web && node bin/shopfloor.js --version
RUN npm prune --omit=dev --no-audit --no-fund

# --- run: only what the server needs, as an unprivileged user -------------------------------
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    ENVIRONMENT=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/package-lock.json /app/tsconfig.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/bin ./bin
COPY --from=build --chown=node:node /app/src ./src
COPY --from=build --chown=node:node /app/web/dist ./web/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8000
# Ready once the database answers and the migrations are applied (GET /readyz, not rate-limited).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/shopfloor.js"]
CMD ["serve"]
