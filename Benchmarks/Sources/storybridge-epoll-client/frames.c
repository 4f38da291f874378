#include "frames.h"

#include <string.h>

void frame_append_masked(struct byte_buffer *out, int opcode, const uint8_t *payload, size_t length, uint32_t mask) {
    uint8_t header[14];
    size_t header_size = 0;
    header[header_size++] = (uint8_t)(0x80 | opcode);
    if (length < 126) {
        header[header_size++] = (uint8_t)(0x80 | length);
    } else if (length <= 0xFFFF) {
        header[header_size++] = 0x80 | 126;
        header[header_size++] = (uint8_t)(length >> 8);
        header[header_size++] = (uint8_t)length;
    } else {
        header[header_size++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--) header[header_size++] = (uint8_t)((uint64_t)length >> (8 * i));
    }
    uint8_t key[4] = {(uint8_t)(mask >> 24), (uint8_t)(mask >> 16), (uint8_t)(mask >> 8), (uint8_t)mask};
    memcpy(header + header_size, key, 4);
    header_size += 4;
    buffer_reserve(out, header_size + length);
    memcpy(out->bytes + out->length, header, header_size);
    uint8_t *masked = out->bytes + out->length + header_size;
    for (size_t i = 0; i < length; i++) masked[i] = payload[i] ^ key[i & 3];
    out->length += header_size + length;
}

enum frame_parse_result frame_parse(uint8_t *bytes, size_t available, struct frame *frame) {
    if (available < 2) return FRAME_INCOMPLETE;
    // No extension was negotiated, so the reserved bits must be clear.
    if (bytes[0] & 0x70) return FRAME_INVALID;
    frame->final = (bytes[0] & 0x80) != 0;
    frame->opcode = bytes[0] & 0x0F;
    int masked = (bytes[1] & 0x80) != 0;
    uint64_t length = bytes[1] & 0x7F;
    size_t header_size = 2;
    if (length == 126) {
        if (available < 4) return FRAME_INCOMPLETE;
        length = (uint64_t)bytes[2] << 8 | bytes[3];
        header_size = 4;
    } else if (length == 127) {
        if (available < 10) return FRAME_INCOMPLETE;
        length = 0;
        for (int i = 0; i < 8; i++) length = length << 8 | bytes[2 + i];
        header_size = 10;
        if (length > ((uint64_t)1 << 40)) return FRAME_INVALID;
    }
    size_t key_offset = header_size;
    if (masked) header_size += 4;
    if (available < header_size || available - header_size < length) return FRAME_INCOMPLETE;
    frame->payload = bytes + header_size;
    frame->length = (size_t)length;
    frame->size = header_size + (size_t)length;
    if (masked) {
        for (size_t i = 0; i < frame->length; i++) frame->payload[i] ^= bytes[key_offset + (i & 3)];
    }
    return FRAME_COMPLETE;
}
