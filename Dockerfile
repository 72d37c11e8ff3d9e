# Build the single binary with the pinned Bun from npm, then ship only the binary.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home /data svc && mkdir -p /data && chown svc /data
COPY --from=build /src/dist/svc /usr/local/bin/svc
USER svc
ENV SVC_DATA_DIR=/data PORT=3000
VOLUME /data
EXPOSE 3000
ENTRYPOINT ["/usr/local/bin/svc"]
CMD ["serve"]
