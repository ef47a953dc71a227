"""Bytes that are not HTTP, sent to a server: prints the status line it answers with, and
"closed" once it hangs up (a socket timeout of 5 s fails the script otherwise)."""
import socket
import sys

connection = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
connection.settimeout(5)
connection.sendall(b"HELLO\r\n\r\n")
data = b""
while True:
    chunk = connection.recv(4096)
    if not chunk:
        break
    data += chunk
print(data.decode().splitlines()[0])
print("closed")
