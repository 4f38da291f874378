// The opening handshake's check (RFC 6455 §4.2.2): the server proves it speaks WebSocket by
// answering Sec-WebSocket-Key with base64(SHA-1(key + the protocol's fixed GUID)).
//
// The SHA-1 and base64 here are small ones written for this benchmark tool, checked against the
// published test vectors (`--self-test`); they are not meant for anything else.
#ifndef EPOLL_CLIENT_ACCEPT_KEY_H
#define EPOLL_CLIENT_ACCEPT_KEY_H

#include <stddef.h>
#include <stdint.h>

/// SHA-1 of `length` bytes.
void sha1_digest(const uint8_t *data, size_t length, uint8_t digest[20]);

/// Base64 (with padding) of `length` bytes into `out`, which holds 4 * ceil(length / 3) + 1 bytes;
/// returns the characters written, not counting the terminating NUL.
size_t base64_encode(const uint8_t *data, size_t length, char *out);

/// The Sec-WebSocket-Accept value a server must send for `key`.
void websocket_accept_for_key(const char *key, char accept[29]);

/// Checks the functions above against known answers; 0 when all match.
int accept_key_self_test(void);

#endif
