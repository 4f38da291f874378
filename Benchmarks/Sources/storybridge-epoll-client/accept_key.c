// SHA-1 (FIPS 180-4) and base64 for the handshake's Sec-WebSocket-Accept check.
#include "accept_key.h"

#include <stdio.h>
#include <string.h>

static uint32_t rotate_left(uint32_t value, int bits) { return (value << bits) | (value >> (32 - bits)); }

static void sha1_block(uint32_t state[5], const uint8_t block[64]) {
    uint32_t words[80];
    for (int i = 0; i < 16; i++) {
        words[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 | (uint32_t)block[4 * i + 2] << 8 |
                   (uint32_t)block[4 * i + 3];
    }
    for (int i = 16; i < 80; i++) words[i] = rotate_left(words[i - 3] ^ words[i - 8] ^ words[i - 14] ^ words[i - 16], 1);
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int i = 0; i < 80; i++) {
        uint32_t mixed, constant;
        if (i < 20) {
            mixed = (b & c) | (~b & d);
            constant = 0x5A827999;
        } else if (i < 40) {
            mixed = b ^ c ^ d;
            constant = 0x6ED9EBA1;
        } else if (i < 60) {
            mixed = (b & c) | (b & d) | (c & d);
            constant = 0x8F1BBCDC;
        } else {
            mixed = b ^ c ^ d;
            constant = 0xCA62C1D6;
        }
        uint32_t next = rotate_left(a, 5) + mixed + e + constant + words[i];
        e = d;
        d = c;
        c = rotate_left(b, 30);
        b = a;
        a = next;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
}

void sha1_digest(const uint8_t *data, size_t length, uint8_t digest[20]) {
    uint32_t state[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    size_t whole = length / 64 * 64;
    for (size_t offset = 0; offset < whole; offset += 64) sha1_block(state, data + offset);
    // The rest, a 1 bit, zeros, and the length in bits as a big-endian 64-bit number: one or two blocks.
    uint8_t tail[128] = {0};
    size_t rest = length - whole;
    memcpy(tail, data + whole, rest);
    tail[rest] = 0x80;
    size_t tail_length = rest + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)length * 8;
    for (int i = 0; i < 8; i++) tail[tail_length - 1 - i] = (uint8_t)(bits >> (8 * i));
    sha1_block(state, tail);
    if (tail_length == 128) sha1_block(state, tail + 64);
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (uint8_t)(state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)state[i];
    }
}

size_t base64_encode(const uint8_t *data, size_t length, char *out) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t written = 0;
    for (size_t i = 0; i < length; i += 3) {
        uint32_t group = (uint32_t)data[i] << 16;
        if (i + 1 < length) group |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < length) group |= data[i + 2];
        out[written++] = alphabet[(group >> 18) & 63];
        out[written++] = alphabet[(group >> 12) & 63];
        out[written++] = i + 1 < length ? alphabet[(group >> 6) & 63] : '=';
        out[written++] = i + 2 < length ? alphabet[group & 63] : '=';
    }
    out[written] = '\0';
    return written;
}

void websocket_accept_for_key(const char *key, char accept[29]) {
    static const char protocol_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    char joined[128];
    int length = snprintf(joined, sizeof joined, "%s%s", key, protocol_guid);
    uint8_t digest[20];
    sha1_digest((const uint8_t *)joined, (size_t)length, digest);
    base64_encode(digest, sizeof digest, accept);
}

int accept_key_self_test(void) {
    int failures = 0;
    // FIPS 180 example "abc", a message that needs a second padding block, and RFC 6455's example key.
    struct {
        const char *message;
        const char *hex;
    } vectors[] = {
        {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
    };
    for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
        uint8_t digest[20];
        char hex[41];
        sha1_digest((const uint8_t *)vectors[v].message, strlen(vectors[v].message), digest);
        for (int i = 0; i < 20; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
        if (strcmp(hex, vectors[v].hex) != 0) {
            fprintf(stderr, "self-test: SHA-1 of \"%s\" is %s, expected %s\n", vectors[v].message, hex, vectors[v].hex);
            failures++;
        }
    }
    char accept[29];
    websocket_accept_for_key("dGhlIHNhbXBsZSBub25jZQ==", accept);
    if (strcmp(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") != 0) {
        fprintf(stderr, "self-test: accept for the RFC 6455 example key is %s\n", accept);
        failures++;
    }
    return failures;
}
