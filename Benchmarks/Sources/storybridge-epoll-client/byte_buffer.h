// A growable byte buffer read from the front: bytes [start, length) are unread.
#ifndef EPOLL_CLIENT_BYTE_BUFFER_H
#define EPOLL_CLIENT_BYTE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

struct byte_buffer {
    uint8_t *bytes;
    size_t start;
    size_t length;
    size_t capacity;
};

/// Room for `extra` more bytes after `length` (moving the unread bytes to the front first);
/// exits the program when memory runs out.
void buffer_reserve(struct byte_buffer *buffer, size_t extra);

/// Appends `count` bytes.
void buffer_append(struct byte_buffer *buffer, const void *bytes, size_t count);

/// Marks `count` unread bytes as read.
void buffer_consume(struct byte_buffer *buffer, size_t count);

/// The number of unread bytes.
static inline size_t buffer_unread(const struct byte_buffer *buffer) { return buffer->length - buffer->start; }

void buffer_free(struct byte_buffer *buffer);

#endif
