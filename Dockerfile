# The dusk image: one static binary, run as a non-root user on distroless.
#
#   docker build -t dusk:dev .
#   docker run --rm dusk:dev version
#
# A program with its own registered functions builds its workers the same
# way: --build-arg PKG=./cmd/myprogram (its main calls dusk.Main).
# For GPU workers, keep the driver loader and a C library:
#   --build-arg TAGS= --build-arg BASE=gcr.io/distroless/base-debian12:nonroot
ARG BASE=gcr.io/distroless/static-debian12:nonroot

FROM golang:1.26-bookworm AS build
ARG PKG=./cmd/dusk
ARG TAGS=nogpu
WORKDIR /src
COPY go.mod go.sum ./
COPY third_party ./third_party
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -tags "$TAGS" -ldflags "-s -w" -o /out/dusk "$PKG"

FROM ${BASE}
COPY --from=build /out/dusk /usr/local/bin/dusk
# distroless's nonroot user (65532); workers write only to their
# --local-directory, a volume.
USER 65532:65532
WORKDIR /home/nonroot
EXPOSE 8786 8787
ENTRYPOINT ["/usr/local/bin/dusk"]
CMD ["scheduler"]
