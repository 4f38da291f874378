// One WebSocket client connection over TCP: the opening handshake (blocking, before anything is
// timed), masked text frames out, and whole messages in.
#ifndef EPOLL_CLIENT_CONNECTION_H
#define EPOLL_CLIENT_CONNECTION_H

#include <stddef.h>
#include <stdint.h>

#include "byte_buffer.h"

struct connection {
    int fd;
    /// Bytes read and not yet parsed, and frames queued and not yet written.
    struct byte_buffer in, out;
    /// The payload of a fragmented message being put together.
    struct byte_buffer fragments;
    int fragments_open;
    /// State of the generator of frame masks.
    uint64_t mask_state;
};

/// Connects to `url` (`ws://host:port/path?query`), sends the upgrade request and checks the
/// answer's status and Sec-WebSocket-Accept. Blocking, with a 10 s limit on each read. 0 on
/// success; otherwise -1 with the reason in `error`.
int connection_open(struct connection *connection, const char *url, char *error, size_t error_size);

/// Makes the socket non-blocking, for the epoll loop. 0 on success.
int connection_set_nonblocking(struct connection *connection);

/// Queues one text message (a single masked frame); written by `connection_flush`.
void connection_queue_text(struct connection *connection, const char *text, size_t length);

/// Writes queued bytes until they are all written or the socket would block. 0, or -1 on an error.
int connection_flush(struct connection *connection);

/// Reads what the socket has: on a non-blocking socket until it would block. The number of bytes
/// read; 0 when the peer closed the connection and nothing was read; CONNECTION_WOULD_BLOCK when
/// there was nothing to read yet; -1 on an error.
enum { CONNECTION_WOULD_BLOCK = -2 };
long connection_fill(struct connection *connection);

enum message_result { MESSAGE_NONE, MESSAGE_READY, MESSAGE_FAILED };

/// The next whole text or binary message among the bytes read. Pings are answered (queued) and
/// pongs skipped; a close frame or a malformed frame fails with the reason in `error`. A ready
/// message's bytes stay valid until the next `connection_fill` or `connection_next_message`.
enum message_result connection_next_message(
    struct connection *connection, const uint8_t **message, size_t *length, char *error, size_t error_size);

/// Waits up to `timeout_ms` for the next whole message on a blocking or non-blocking socket.
/// 0 when one is ready; -1 with the reason in `error`.
int connection_receive(
    struct connection *connection, int timeout_ms, const uint8_t **message, size_t *length, char *error, size_t error_size);

/// Sends a close frame (best effort), closes the socket and frees the buffers.
void connection_close(struct connection *connection);

#endif
