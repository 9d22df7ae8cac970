# The `collections` command in a container: Node 20 slim, the packed npm tarball installed globally,
# run as the image's non-root `node` user. Build from the repository root:
#   docker build -t collections .
#   docker run --rm -e COLLECTIONS_BASE_URL -e COLLECTIONS_API_KEY -v "$PWD/data:/data" \
#     collections invoices --taxpayer "$RFC" --cursor --out /data/invoices.ndjson
# See the README, "Container image", for a Kubernetes CronJob.

# Stage 1: build dist/ and pack the tarball exactly as `npm publish` would (prepack builds).
FROM node:20-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json rollup.config.mjs LICENSE README.md CHANGELOG.md ./
COPY bin ./bin
COPY src ./src
RUN npm pack --pack-destination /tmp && mv /tmp/hydra-collections-export-*.tgz /tmp/collections.tgz

# Stage 2: install the tarball (production dependencies only; the package runs no install scripts).
FROM node:20-slim
COPY --from=pack /tmp/collections.tgz /tmp/collections.tgz
RUN npm install -g --no-audit --no-fund /tmp/collections.tgz \
  && rm /tmp/collections.tgz \
  && npm cache clean --force \
  && mkdir /data \
  && chown node:node /data
USER node
WORKDIR /data
ENTRYPOINT ["collections"]
CMD ["--help"]
