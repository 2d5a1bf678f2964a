# netherscope in a bookworm container: listens on 0.0.0.0:8080, store in /var/lib/netherscope,
# every setting from NETHERSCOPE_* environment variables (`netherscope --help` lists them).
#
#   podman build --format docker -t netherscope .     (or: docker build -t netherscope .)
#   podman run -p 127.0.0.1:8080:8080 -v netherscope-data:/var/lib/netherscope netherscope
#   podman exec CONTAINER netherscope admin accounts   (the same store, by NETHERSCOPE_DATA_DIR)
#
# BASE_IMAGE is the bookworm both stages start from; tools/container-test.sh passes one it made
# with debootstrap, so nothing is pulled from a registry. --format docker keeps HEALTHCHECK,
# which the OCI image format has no field for.
ARG BASE_IMAGE=docker.io/library/debian:bookworm

FROM ${BASE_IMAGE} AS build
WORKDIR /src
# The project's own setup script is the one list of build dependencies; it runs before the
# sources are copied so the layer is reused while the script is unchanged.
COPY tools/setup.sh tools/setup.sh
RUN tools/setup.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
 && cmake --build build -j"$(nproc)" --target netherscope netherscope-join \
 && strip build/netherscope build/netherscope-join

FROM ${BASE_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="netherscope" \
      org.opencontainers.image.description="JSON API that looks into Minecraft Bedrock servers speaking NetherNet" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="NOASSERTION" \
      org.opencontainers.image.base.name="debian:bookworm"
# Only what the binaries link (ldd build/netherscope build/netherscope-join), the CA store for
# HTTPS targets, and lmdb-utils for mdb_copy backups of the live store (docs/OPERATIONS.md).
# libhiredis is for the Redis store (--store redis://...), libusrsctp2 for the join worker's SCTP,
# librsvg2-2 (with cairo, Pango and a font) draws the PNG badge.
RUN apt-get update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      ca-certificates libcaf-core0.17 libboost-json1.81.0 libboost-url1.81.0 \
      libboost-program-options1.81.0 libssl3 liblmdb0 libc-ares2 libhiredis0.14 libusrsctp2 \
      librsvg2-2 libcairo2 \
      lmdb-utils \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb \
 && groupadd --system --gid 10001 netherscope \
 && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/netherscope \
      --no-create-home --shell /usr/sbin/nologin netherscope \
 && mkdir -p /var/lib/netherscope \
 && chown 10001:10001 /var/lib/netherscope \
 && chmod 0700 /var/lib/netherscope
COPY --from=build /src/build/netherscope /usr/local/bin/netherscope
# The join worker (docs/ARCHITECTURE.md, "The join"), beside the service's binary.
COPY --from=build /src/build/netherscope-join /usr/local/bin/netherscope-join
# A fixed numeric UID, so volume permissions and Kubernetes' runAsNonRoot can rely on it.
USER 10001:10001
ENV NETHERSCOPE_LISTEN=0.0.0.0 \
    NETHERSCOPE_PORT=8080 \
    NETHERSCOPE_DATA_DIR=/var/lib/netherscope
VOLUME /var/lib/netherscope
EXPOSE 8080
STOPSIGNAL SIGTERM
# bash's /dev/tcp keeps curl out of the image. The start period covers the first start,
# which makes the store and the service's DTLS identity.
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 CMD ["/bin/bash", "-c", \
  "exec 3<>/dev/tcp/127.0.0.1/${NETHERSCOPE_PORT:-8080} && printf 'GET /healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["/usr/local/bin/netherscope"]
