#include "byte_buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buffer_reserve(struct byte_buffer *buffer, size_t extra) {
    if (buffer->start > 0) {
        memmove(buffer->bytes, buffer->bytes + buffer->start, buffer->length - buffer->start);
        buffer->length -= buffer->start;
        buffer->start = 0;
    }
    if (buffer->length + extra <= buffer->capacity) return;
    size_t capacity = buffer->capacity ? buffer->capacity : 4096;
    while (capacity < buffer->length + extra) capacity *= 2;
    uint8_t *grown = realloc(buffer->bytes, capacity);
    if (!grown) {
        fprintf(stderr, "storybridge-epoll-client: out of memory\n");
        exit(1);
    }
    buffer->bytes = grown;
    buffer->capacity = capacity;
}

void buffer_append(struct byte_buffer *buffer, const void *bytes, size_t count) {
    if (buffer->length + count > buffer->capacity) buffer_reserve(buffer, count);
    memcpy(buffer->bytes + buffer->length, bytes, count);
    buffer->length += count;
}

void buffer_consume(struct byte_buffer *buffer, size_t count) {
    buffer->start += count;
    if (buffer->start == buffer->length) buffer->start = buffer->length = 0;
}

void buffer_free(struct byte_buffer *buffer) {
    free(buffer->bytes);
    *buffer = (struct byte_buffer){0};
}
