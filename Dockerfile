# The dedicated V12 server (and the master server) as an OCI image.
#
#   docker build -t v12-server .
#   docker run --rm -p 28000:28000/udp v12-server                 # a match server
#   docker run --rm -p 28000:28000/udp --entrypoint /app/v12-master v12-server
#
# Stage 1 builds the release binaries; stage 2 is a small Debian image with only them, the
# example game's scripts and a non-root user. The GL and window libraries are loaded at
# run time only by the window client, so the dedicated server needs none of them; libudev
# (gilrs, linked) is the one shared library it adds.

FROM rust:1.95-slim-bookworm AS build
# libudev-dev: gilrs (the window client's gamepads) links libudev, which is in the binary.
RUN apt-get update && apt-get install -y --no-install-recommends pkg-config libudev-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p v12-game --bin v12 -p v12-master --bin v12-master

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libudev1 && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin v12
WORKDIR /app
COPY --from=build /src/target/release/v12 /src/target/release/v12-master /app/
COPY --from=build /src/examples/game /app/game
USER 10001:10001
EXPOSE 28000/udp
# -bind 0.0.0.0: reachable from outside the container. Pass a master with `-master IP:PORT`;
# in an Agones fleet the sidecar's port comes from AGONES_SDK_HTTP_PORT.
ENTRYPOINT ["/app/v12", "--dedicated", "--mod", "/app/game", "--", "-bind", "0.0.0.0"]
CMD ["-port", "28000", "-seconds", "600"]
