#!/usr/bin/env python3
"""Calls greeting-host's commands over the bridge WebSocket, as a page's client would, and checks
the answers.

    bridge-call.py PORT TOKEN SLIDE

A plain RFC 6455 client on the standard library (no package to install): one connection to
127.0.0.1:PORT as a viewer of presentation 1 on SLIDE, with the launch token the slide carried.
Exits 1 naming the first answer that is not the one expected.
"""
import base64
import json
import os
import socket
import struct
import sys

port, token, slide = int(sys.argv[1]), sys.argv[2], sys.argv[3]
connection = socket.create_connection(("127.0.0.1", port), timeout=30)
key = base64.b64encode(os.urandom(16)).decode()
path = f"/__storybridge/ws?viewer=embedding-guide-check&presentation=1&slide={slide}&token={token}"
connection.sendall(
    (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
)
received = b""
while b"\r\n\r\n" not in received:
    chunk = connection.recv(4096)
    if not chunk:
        sys.exit("bridge-call: the host closed the connection during the handshake")
    received += chunk
head, received = received.split(b"\r\n\r\n", 1)
if b" 101 " not in head.split(b"\r\n")[0]:
    sys.exit(f"bridge-call: no WebSocket upgrade: {head.decode(errors='replace')}")


def read_exactly(count):
    global received
    while len(received) < count:
        chunk = connection.recv(65536)
        if not chunk:
            sys.exit("bridge-call: the host closed the connection")
        received += chunk
    data, received = received[:count], received[count:]
    return data


def next_message():
    """The next text message from the host, as JSON (pings are answered, other frames skipped)."""
    while True:
        first, second = read_exactly(2)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack(">H", read_exactly(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", read_exactly(8))[0]
        payload = read_exactly(length)
        opcode = first & 0x0F
        if opcode == 0x8:
            sys.exit(f"bridge-call: the host closed the socket: {payload[:2].hex()} {payload[2:].decode(errors='replace')}")
        if opcode == 0x9:
            send_frame(0xA, payload)
        elif opcode == 0x1:
            return json.loads(payload)


def send_frame(opcode, payload):
    mask = os.urandom(4)
    header = bytes([0x80 | opcode])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    else:
        header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
    connection.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


events = []


def call(command, data):
    """Sends one request and returns its answer; events that come first are kept in `events`."""
    guid = f"check-{command}-{len(events)}-{os.urandom(4).hex()}"
    send_frame(0x1, json.dumps({"Command": command, "Data": data, "GUID": guid}).encode())
    while True:
        message = next_message()
        if message.get("GUID") == guid:
            return message
        if "Event" in message:
            events.append(message)


def expect(what, condition, answer):
    if not condition:
        sys.exit(f"bridge-call: {what}: got {json.dumps(answer)}")
    print(f"  ok  {what}")


answer = call("greet", {"name": "Ada", "title": "Dr.", "shout": True})
expect("greet answers from memory with the viewer's slide",
       answer["Status"] == "Success" and answer["Data"] == {"text": "HELLO, DR. ADA!", "slide": slide}, answer)
answer = call("greet", {})
expect("greet without a name is a 400 naming it",
       answer["Status"] == "Failure" and answer["ErrorCode"] == 400 and "name" in answer["ErrorMessage"], answer)
answer = call("greet", {"name": "Ada", "shout": "yes"})
expect("a shout that is not a boolean is a 400 naming it",
       answer["ErrorCode"] == 400 and "shout" in answer["ErrorMessage"], answer)
answer = call("setGreeting", {"word": "Hi"})
expect("setGreeting changes the word", answer["Status"] == "Success" and answer["Data"] == {"word": "Hi"}, answer)
answer = call("greet", {"name": "Ada"})
expect("greet uses the new word", answer["Data"].get("text") == "Hi, Ada", answer)
answer = call("greetLater", {"name": "Bo", "afterMs": "50"})
expect("greetLater answers after its wait, a numeric string accepted",
       answer["Status"] == "Success" and answer["Data"] == {"text": "Hi, Bo"}, answer)
greeted = [event for event in events if event["Event"] == "greeted"]
expect("greetLater pushed its event before the answer", greeted and greeted[0]["Data"] == {"text": "Hi, Bo"}, events)
connection.close()
