"""The server's websocket transport: connections read and written without a task or a queue per
frame, sessions, and the fan-out that groups their writes (docs/design.md, "The path of a move").

* `connection` — one TCP connection: websockets' sans-I/O `ServerProtocol` for the handshake and
  every unusual frame, the server's own reader for the binary frames that carry requests;
* `session` — what the server knows of one client connection: its player, rate limit, and the
  frames it is sent;
* `fanout` — when those frames leave, and one channel per race and audience;
* `keepalive` — pings from one task for every connection;
* `frames` — a server frame's bytes.
"""
