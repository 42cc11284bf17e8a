"""The requests a client may make, one module per concern: `players` (hello, rename), `races`
(create, join, start, move, resign, watch, sync, records, rematch, replay, listings),
`tournaments` (organising, registering, following, their schedules) and `bonus` (Double or
Naught). Each handler is a plain function ``handler(state, session, player, message)`` over the
server's memory (`server.state.ServerState`); `server.dispatch` maps each message type to its
handler and says where it is carried out.
"""
