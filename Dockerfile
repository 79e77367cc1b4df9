# Folio in a container: a static binary (CGO_ENABLED=0; SQLite is pure Go)
# on a distroless base that runs as an unprivileged user. See
# docs/operations.md.
#
#   docker build -t folio --build-arg VERSION=$(git describe --tags --always) .
#   docker run -p 8080:8080 -p 9090:9090 -v folio-data:/data folio

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION} AS build
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/folio ./cmd/folio
# The data directory, owned by the distroless "nonroot" user (65532).
RUN mkdir -p /out/data && chown 65532:65532 /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/folio /usr/local/bin/folio
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME ["/data"]
# 8080: the site and its API; 9090: Prometheus metrics (a separate
# listener, never the public one).
EXPOSE 8080 9090
ENV FOLIO_ADDR=0.0.0.0:8080 \
    FOLIO_DATA=/data \
    FOLIO_METRICS_ADDR=0.0.0.0:9090 \
    FOLIO_LOG_FORMAT=json
ENTRYPOINT ["/usr/local/bin/folio"]
CMD ["serve"]
