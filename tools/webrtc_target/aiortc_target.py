#!/usr/bin/python3
"""A NetherNet signalling target whose answers come from aiortc (Debian python3-aiortc).

The same role as target.js, for a third WebRTC stack we did not write: aiortc is the one that
answers an offer with zero candidates and a=end-of-candidates with zero candidates of its own
(PROTOCOL.md section 3.2), so it tells whether our offer is read as "nothing to connect to".

    /usr/bin/python3 aiortc_target.py [--port 0] [--answer-timeout-ms 5000]
                                      [--gather-address 127.0.0.1] [--protocol 2193]

Its channels speak the Bedrock prelude as target.js's do: exactly ReliableDataChannel and
UnreliableDataChannel, or the connection is closed, and RequestNetworkSettings answered with
NetworkSettings at --protocol, or PlayStatus 1 (client older) or 2 (server older).

It listens on 127.0.0.1 only and prints {"event":"listening","port":N} on stdout when ready.
No STUN or TURN server is configured, so it sends nothing unless our offer names a candidate.
"""

import argparse
import asyncio
import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import aioice.ice
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

MAX_OFFER_BYTES = 1024 * 1024
JOIN_PATH = re.compile(r"^/v1/join/([0-9]{1,20})$")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--answer-timeout-ms", type=int, default=5000)
    parser.add_argument("--gather-address", default="127.0.0.1")
    parser.add_argument("--protocol", type=int, default=2193)
    opts = parser.parse_args()
    if not 0 <= opts.port <= 65535 or opts.answer_timeout_ms <= 0:
        parser.error("--port is 0..65535 and --answer-timeout-ms positive")
    return opts


class Stack:
    """Runs aiortc on its own event loop thread; HTTP handler threads submit offers to it."""

    def __init__(self, gather_address):
        # aioice leaves loopback out when it gathers; on a loopback-only test machine every
        # answer would have no candidate whatever our offer says, so gather on one address.
        aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [gather_address]
        self.loop = asyncio.new_event_loop()
        self.sessions = set()
        self.stats = {"offers": 0, "answers": 0, "failures": 0, "timeouts": 0,
                      "candidates": 0, "last_answer": "", "channels": [],
                      "refused_channels": 0, "requests": []}
        self.protocol = 2193
        self.lock = threading.Lock()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    async def _answer(self, offer_sdp):
        # iceServers=[] explicitly: aiortc's default is a public STUN server.
        pc = RTCPeerConnection(configuration=RTCConfiguration(iceServers=[]))
        self.sessions.add(pc)
        serve_prelude(self, pc)
        # A session lives long enough for connectivity checks, then its sockets are released.
        self.loop.call_later(15, lambda: asyncio.ensure_future(self._close(pc)))
        # Servers strip a=identity before handing the offer to their stack (PROTOCOL.md 2.3).
        stripped = "\r\n".join(line for line in re.split(r"\r\n|\n", offer_sdp)
                               if not line.startswith("a=identity:"))
        await pc.setRemoteDescription(RTCSessionDescription(sdp=stripped, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        return pc.localDescription.sdp

    async def _close(self, pc):
        self.sessions.discard(pc)
        await pc.close()

    def answer(self, offer_sdp, timeout_s):
        """The answer SDP; raises TimeoutError, or the stack's error for a refused offer."""
        future = asyncio.run_coroutine_threadsafe(
            asyncio.wait_for(self._answer(offer_sdp), timeout_s), self.loop)
        return future.result()


def varuint(buf, pos):
    """An unsigned LEB128 varint at pos: (value, next pos), or None."""
    value = 0
    for shift in range(0, 35, 7):
        if pos >= len(buf):
            return None
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b & 0x80 == 0:
            return value, pos
    return None


def requested_protocol(msg):
    """The client protocol of a RequestNetworkSettings message, or None."""
    if len(msg) < 2 or msg[0] != 0:
        return None
    length = varuint(msg, 1)
    header = length and varuint(msg, length[1])
    if not header or header[0] & 0x3FF != 193 or header[1] + 4 > len(msg):
        return None
    return int.from_bytes(msg[header[1]:header[1] + 4], "big", signed=True)


def one_packet(packet):
    """A whole NetherNet message: segment header 0, then a batch of one packet."""
    return bytes([0, len(packet)]) + packet


def game_answer(protocol, server_protocol):
    if protocol < server_protocol:
        return one_packet(bytes([0x02]) + (1).to_bytes(4, "big"))
    if protocol > server_protocol:
        return one_packet(bytes([0x02]) + (2).to_bytes(4, "big"))
    # NetworkSettings: threshold 1, zlib, no throttle.
    return one_packet(bytes([0x8F, 0x01, 1, 0, 0, 0, 0, 0]) + bytes(4))


EXPECTED_CHANNELS = {"ReliableDataChannel": (True, None), "UnreliableDataChannel": (False, 0)}


def serve_prelude(stack, pc):
    @pc.on("datachannel")
    def on_channel(channel):
        with stack.lock:
            stack.stats["channels"].append({"label": channel.label, "ordered": channel.ordered,
                                            "maxRetransmits": channel.maxRetransmits})
        want = EXPECTED_CHANNELS.get(channel.label)
        if want is None or want != (channel.ordered, channel.maxRetransmits) or channel.protocol:
            with stack.lock:
                stack.stats["refused_channels"] += 1
            asyncio.ensure_future(pc.close())
            return
        if channel.label != "ReliableDataChannel":
            return

        @channel.on("message")
        def on_message(message):
            data = message if isinstance(message, bytes) else message.encode("utf-8")
            protocol = requested_protocol(data)
            if protocol is None:
                return
            with stack.lock:
                stack.stats["requests"].append(protocol)
            channel.send(game_answer(protocol, stack.protocol))


def make_handler(stack, timeout_s):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass  # nop: the tests read stdout for the listening line only

        def send(self, status, content_type, body):
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/v1/join":
                return self.send(200, "application/json",
                                 json.dumps({"name": "webrtc_target (aiortc)",
                                             "protocol": stack.protocol,
                                             "version": "1.26.51", "stack": "aiortc"}))
            if self.path == "/_target/stats":
                with stack.lock:
                    return self.send(200, "application/json", json.dumps(stack.stats))
            self.send(404, "text/plain", "Not found")

        def do_POST(self):
            if not JOIN_PATH.match(self.path):
                return self.send(404, "text/plain", "Not found")
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_OFFER_BYTES:
                return self.send(413, "text/plain", "SDP offer is too large")
            offer = self.rfile.read(length).decode("utf-8", errors="replace")
            with stack.lock:
                stack.stats["offers"] += 1
            if not offer:
                return self.send(400, "text/plain", "Missing SDP offer in request body")
            # Error bodies follow go-nethernet, which most third-party servers copy (2.4).
            try:
                sdp = stack.answer(offer, timeout_s)
            except (TimeoutError, asyncio.TimeoutError):
                with stack.lock:
                    stack.stats["timeouts"] += 1
                return self.send(502, "text/plain", "Timed out waiting for answer")
            except Exception as err:  # any refusal by the stack is a negotiation failure
                with stack.lock:
                    stack.stats["failures"] += 1
                sys.stderr.write(f"aiortc_target: aiortc refused the offer: {err!r}\n")
                return self.send(400, "text/plain", "Negotiation failed with error code: 13")
            with stack.lock:
                stack.stats["answers"] += 1
                stack.stats["candidates"] += sum(
                    1 for line in re.split(r"\r\n|\n", sdp) if line.startswith("a=candidate:"))
                stack.stats["last_answer"] = sdp
            self.send(200, "application/sdp", sdp)

    return Handler


def main():
    opts = parse_args()
    stack = Stack(opts.gather_address)
    stack.protocol = opts.protocol
    server = ThreadingHTTPServer(("127.0.0.1", opts.port),
                                 make_handler(stack, opts.answer_timeout_ms / 1000.0))
    print(json.dumps({"event": "listening", "port": server.server_address[1],
                      "stack": "aiortc"}, separators=(",", ":")), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
