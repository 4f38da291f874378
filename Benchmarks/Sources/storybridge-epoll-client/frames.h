// WebSocket frames (RFC 6455 §5): the masked frames a client sends, and the parsing of what the
// server sends.
#ifndef EPOLL_CLIENT_FRAMES_H
#define EPOLL_CLIENT_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "byte_buffer.h"

enum {
    OPCODE_CONTINUATION = 0x0,
    OPCODE_TEXT = 0x1,
    OPCODE_BINARY = 0x2,
    OPCODE_CLOSE = 0x8,
    OPCODE_PING = 0x9,
    OPCODE_PONG = 0xA,
};

/// Appends one final frame of `opcode` carrying `payload`, masked with `mask` as every client
/// frame must be.
void frame_append_masked(struct byte_buffer *out, int opcode, const uint8_t *payload, size_t length, uint32_t mask);

/// One frame read from the server; `payload` points into the buffer it was parsed from.
struct frame {
    int final;
    int opcode;
    uint8_t *payload;
    size_t length;
    /// Bytes of the buffer the frame took, header included.
    size_t size;
};

enum frame_parse_result { FRAME_INCOMPLETE, FRAME_COMPLETE, FRAME_INVALID };

/// Parses the frame at the front of `bytes` (unmasking it in place if the server masked it, which
/// it should not); FRAME_INCOMPLETE when more bytes are needed.
enum frame_parse_result frame_parse(uint8_t *bytes, size_t available, struct frame *frame);

#endif
