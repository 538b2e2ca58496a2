# Production image: the app (next start) and, with another command, the worker.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The workspaces (the engine and client packages) must be known to npm ci.
COPY lib/hooks/package.json ./lib/hooks/
COPY lib/client/package.json ./lib/client/
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npx next build

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_MANUAL_SIG_HANDLE=1 \
    PORT=3000
COPY --from=build /app ./
RUN useradd --system --uid 1001 checkpoint && mkdir -p /app/.data && chown -R checkpoint /app/.data
USER checkpoint
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["sh", "-c", "npm run db:migrate && exec node scripts/start.mjs --no-build"]
