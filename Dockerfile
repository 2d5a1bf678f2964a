# netherscope in a bookworm container: listens on 0.0.0.0:8080, store in /var/lib/netherscope.
#
#   docker build -t netherscope .
#   docker run -p 8080:8080 -v netherscope-data:/var/lib/netherscope netherscope
#
# Replicas on one host may share the volume (LMDB serializes writers across processes).

FROM debian:bookworm AS build
WORKDIR /src
COPY tools/setup.sh tools/setup.sh
RUN tools/setup.sh && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF \
 && cmake --build build -j"$(nproc)" --target netherscope \
 && strip build/netherscope

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libcaf-core0.17 \
      libboost-json1.81.0 libboost-url1.81.0 libboost-program-options1.81.0 libssl3 liblmdb0 \
      libc-ares2 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home /var/lib/netherscope netherscope \
 && mkdir -p /var/lib/netherscope && chown netherscope /var/lib/netherscope
COPY --from=build /src/build/netherscope /usr/local/bin/netherscope
USER netherscope
ENV NETHERSCOPE_LISTEN=0.0.0.0 \
    NETHERSCOPE_PORT=8080 \
    NETHERSCOPE_DATA_DIR=/var/lib/netherscope
VOLUME /var/lib/netherscope
EXPOSE 8080
STOPSIGNAL SIGTERM
# bash's /dev/tcp keeps curl out of the image.
HEALTHCHECK --interval=30s --timeout=3s CMD ["/bin/bash", "-c", \
  "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["/usr/local/bin/netherscope"]
