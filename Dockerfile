# Multi-stage image of the site (issue 8). Node 24 LTS, production dependencies only, non-root.
#   docker build -t adtech-site --build-arg SITE_URL=https://ads.example.com .   # the app (last stage)
#   docker build -t adtech-proxy --target proxy .          # nginx with the prebuilt pages
# The last stage is the default target, so `runtime` stays last; compose.yaml also names each
# service's target. .dockerignore keeps node_modules, dist, data (contact PII) and .git out of the
# context, so `COPY . .` cannot replace the freshly installed node_modules.
# `node scripts/image-smoke.ts` performs the runtime stage's steps without Docker, and
# test/unit/Dockerfile.test.ts checks this file, compose.yaml and .dockerignore agree.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
# Absolute URLs in /api/news, the feed and the sitemap are fixed at build time.
ARG SITE_URL=http://localhost:8080
RUN SITE_URL=$SITE_URL ASTRO_TELEMETRY_DISABLED=1 npx astro build

FROM nginx:1.27-bookworm AS proxy
COPY --from=build /app/dist/client /srv/site
COPY deploy/nginx.compose.conf /etc/nginx/nginx.conf
RUN mkdir -p /tmp/nginx && chown -R nginx:nginx /tmp/nginx
EXPOSE 8080

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4321 DATABASE_URL=/data/site.db
# The memory settings `npm start` runs with (package.json; bench/NOTES.md): a 4 MB young generation
# and one malloc arena instead of one per thread, about 80 MB less peak RSS under load; fixed mmap
# and trim thresholds, so glibc gives freed blocks back instead of raising them ("Memory round 7").
ENV NODE_OPTIONS=--max-semi-space-size=4 MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=65536
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
# What the server and `node jobs/cli/migrate.ts` read at run time: the build (pages, the
# assistant's search index and the server compiled to JavaScript in dist/server), the launcher
# in bin/, the TypeScript sources the commands run by type stripping, and package.json ("type":
# "module").
# content/ is read only by `astro build`.
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY src ./src
COPY jobs ./jobs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 4321
HEALTHCHECK --interval=10s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:4321/readyz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The server as the build compiled it (src/app/server-bundle.ts): no .ts is loaded at run time.
CMD ["node", "bin/start.mjs"]
