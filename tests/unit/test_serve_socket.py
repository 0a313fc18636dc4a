"""``graphmem serve``'s listening socket: every accepted connection has TCP_NODELAY, as the event loop sets it only
on sockets whose protocol says TCP. Without it a kept-alive client waited 40 ms (delayed ACK) for each response,
/healthz included: measured 44 ms per request with httpx before, 0.7 ms after (benchmarks/load.py's figures)."""

from __future__ import annotations

import asyncio
import socket

from graphmem.cli.serve import listen


async def test_an_accepted_connection_sends_without_delay() -> None:
    sock = listen("127.0.0.1", 0)
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Capture(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            conn = transport.get_extra_info("socket")
            accepted.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Capture, sock=sock)
    try:
        port = sock.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(accepted, 10) != 0, "Nagle is on: responses wait for the client's ACK"
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
