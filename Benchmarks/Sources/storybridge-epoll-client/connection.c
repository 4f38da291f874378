#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "connection.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "accept_key.h"
#include "frames.h"

/// The parts of a `ws://` URL the request needs.
struct ws_url {
    char host[256];
    char port[8];
    char authority[280];
    const char *target;
};

static int parse_url(const char *url, struct ws_url *parsed, char *error, size_t error_size) {
    static const char scheme[] = "ws://";
    if (strncmp(url, scheme, sizeof scheme - 1) != 0) {
        snprintf(error, error_size, "'%s' is not a ws:// URL (wss is not supported)", url);
        return -1;
    }
    const char *authority = url + sizeof scheme - 1;
    const char *slash = strchr(authority, '/');
    size_t authority_length = slash ? (size_t)(slash - authority) : strlen(authority);
    const char *colon = memchr(authority, ':', authority_length);
    size_t host_length = colon ? (size_t)(colon - authority) : authority_length;
    size_t port_length = colon ? authority_length - host_length - 1 : 0;
    if (host_length == 0 || host_length >= sizeof parsed->host || port_length >= sizeof parsed->port ||
        (colon && port_length == 0)) {
        snprintf(error, error_size, "'%s' has no usable host and port", url);
        return -1;
    }
    memcpy(parsed->host, authority, host_length);
    parsed->host[host_length] = '\0';
    if (colon) {
        memcpy(parsed->port, colon + 1, port_length);
        parsed->port[port_length] = '\0';
    } else {
        strcpy(parsed->port, "80");
    }
    snprintf(parsed->authority, sizeof parsed->authority, "%.*s", (int)authority_length, authority);
    parsed->target = slash ? slash : "/";
    return 0;
}

static int connect_tcp(const struct ws_url *url, char *error, size_t error_size) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *addresses = NULL;
    int status = getaddrinfo(url->host, url->port, &hints, &addresses);
    if (status != 0) {
        snprintf(error, error_size, "cannot resolve %s: %s", url->host, gai_strerror(status));
        return -1;
    }
    int fd = -1;
    int saved_errno = 0;
    for (struct addrinfo *address = addresses; address && fd < 0; address = address->ai_next) {
        fd = socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC, address->ai_protocol);
        if (fd < 0) {
            saved_errno = errno;
            continue;
        }
        if (connect(fd, address->ai_addr, address->ai_addrlen) != 0) {
            saved_errno = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(addresses);
    if (fd < 0) {
        snprintf(error, error_size, "cannot connect to %s: %s", url->authority, strerror(saved_errno));
        return -1;
    }
    // As NIO's client bootstrap does by default: small frames go out at once.
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    struct timeval limit = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    return fd;
}

static int write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = send(fd, bytes, length, MSG_NOSIGNAL);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

/// The value of header `name` (case-insensitive) in the response head, copied into `value`.
static int header_value(const char *head, const char *name, char *value, size_t value_size) {
    size_t name_length = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, name, name_length) != 0 || line[name_length] != ':') continue;
        const char *start = line + name_length + 1;
        while (*start == ' ' || *start == '\t') start++;
        const char *end = strstr(start, "\r\n");
        size_t length = end ? (size_t)(end - start) : strlen(start);
        while (length > 0 && (start[length - 1] == ' ' || start[length - 1] == '\t')) length--;
        if (length >= value_size) return -1;
        memcpy(value, start, length);
        value[length] = '\0';
        return 0;
    }
    return -1;
}

int connection_open(struct connection *connection, const char *url, char *error, size_t error_size) {
    *connection = (struct connection){.fd = -1};
    struct ws_url parsed;
    if (parse_url(url, &parsed, error, error_size) != 0) return -1;
    uint8_t nonce[16];
    if (getrandom(nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce ||
        getrandom(&connection->mask_state, sizeof connection->mask_state, 0) != (ssize_t)sizeof connection->mask_state) {
        snprintf(error, error_size, "getrandom failed: %s", strerror(errno));
        return -1;
    }
    connection->mask_state |= 1;
    char key[25];
    base64_encode(nonce, sizeof nonce, key);
    int fd = connect_tcp(&parsed, error, error_size);
    if (fd < 0) return -1;
    connection->fd = fd;

    size_t request_size = strlen(parsed.target) + strlen(parsed.authority) + 256;
    char *request = malloc(request_size);
    int request_length = snprintf(
        request, request_size,
        "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n",
        parsed.target, parsed.authority, key);
    int sent = write_all(fd, request, (size_t)request_length);
    free(request);
    if (sent != 0) {
        snprintf(error, error_size, "cannot send the upgrade request to %s: %s", parsed.authority, strerror(errno));
        connection_close(connection);
        return -1;
    }

    // The response head; bytes after it (a first message) stay in `in`.
    char *end = NULL;
    while (!end) {
        if (buffer_unread(&connection->in) > 16384) {
            snprintf(error, error_size, "the upgrade response from %s has no end of head in 16 KB", parsed.authority);
            connection_close(connection);
            return -1;
        }
        buffer_reserve(&connection->in, 4097);
        ssize_t count = recv(fd, connection->in.bytes + connection->in.length, 4096, 0);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) {
            snprintf(error, error_size, "no upgrade response from %s: %s", parsed.authority, count == 0 ? "connection closed" : strerror(errno));
            connection_close(connection);
            return -1;
        }
        connection->in.length += (size_t)count;
        connection->in.bytes[connection->in.length] = '\0';
        end = memmem(connection->in.bytes, connection->in.length, "\r\n\r\n", 4);
    }
    char *head = (char *)connection->in.bytes;
    size_t head_length = (size_t)(end - head) + 4;
    end[2] = '\0';  // the head as a string, ending with its last header's CRLF
    char accept[64], expected[29];
    websocket_accept_for_key(key, expected);
    if (strncmp(head, "HTTP/1.1 101", 12) != 0) {
        const char *line_end = strstr(head, "\r\n");
        snprintf(error, error_size, "%s refused the upgrade: %.*s", parsed.authority, (int)(line_end - head), head);
        connection_close(connection);
        return -1;
    }
    if (header_value(head, "Sec-WebSocket-Accept", accept, sizeof accept) != 0 || strcmp(accept, expected) != 0) {
        snprintf(error, error_size, "%s answered the upgrade without the right Sec-WebSocket-Accept", parsed.authority);
        connection_close(connection);
        return -1;
    }
    buffer_consume(&connection->in, head_length);
    return 0;
}

int connection_set_nonblocking(struct connection *connection) {
    int flags = fcntl(connection->fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(connection->fd, F_SETFL, flags | O_NONBLOCK);
}

/// xorshift64*: frame masks only need to be unpredictable to proxies, not secret.
static uint32_t next_mask(struct connection *connection) {
    uint64_t x = connection->mask_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    connection->mask_state = x;
    return (uint32_t)((x * 0x2545F4914F6CDD1DULL) >> 32);
}

void connection_queue_text(struct connection *connection, const char *text, size_t length) {
    frame_append_masked(&connection->out, OPCODE_TEXT, (const uint8_t *)text, length, next_mask(connection));
}

int connection_flush(struct connection *connection) {
    while (buffer_unread(&connection->out) > 0) {
        ssize_t written = send(
            connection->fd, connection->out.bytes + connection->out.start, buffer_unread(&connection->out), MSG_NOSIGNAL);
        if (written < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;
        }
        buffer_consume(&connection->out, (size_t)written);
    }
    return 0;
}

long connection_fill(struct connection *connection) {
    long total = 0;
    for (;;) {
        buffer_reserve(&connection->in, 65536);
        ssize_t count = recv(connection->fd, connection->in.bytes + connection->in.length, 65536, 0);
        if (count < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return total > 0 ? total : CONNECTION_WOULD_BLOCK;
            return total > 0 ? total : -1;
        }
        if (count == 0) return total;
        connection->in.length += (size_t)count;
        total += count;
        if (count < 65536) return total;
    }
}

enum message_result connection_next_message(
    struct connection *connection, const uint8_t **message, size_t *length, char *error, size_t error_size) {
    if (connection->fragments_open < 0) {
        // The previous call returned the assembled fragments.
        connection->fragments.start = connection->fragments.length = 0;
        connection->fragments_open = 0;
    }
    for (;;) {
        struct frame frame;
        enum frame_parse_result parsed =
            frame_parse(connection->in.bytes + connection->in.start, buffer_unread(&connection->in), &frame);
        if (parsed == FRAME_INCOMPLETE) return MESSAGE_NONE;
        if (parsed == FRAME_INVALID) {
            snprintf(error, error_size, "the server sent a malformed frame");
            return MESSAGE_FAILED;
        }
        buffer_consume(&connection->in, frame.size);
        switch (frame.opcode) {
        case OPCODE_PING:
            frame_append_masked(&connection->out, OPCODE_PONG, frame.payload, frame.length, next_mask(connection));
            continue;
        case OPCODE_PONG:
            continue;
        case OPCODE_CLOSE: {
            int code = frame.length >= 2 ? frame.payload[0] << 8 | frame.payload[1] : 0;
            snprintf(error, error_size, "the server closed the connection (code %d%s%.*s)", code, frame.length > 2 ? ": " : "",
                     frame.length > 2 ? (int)frame.length - 2 : 0, (const char *)frame.payload + 2);
            return MESSAGE_FAILED;
        }
        case OPCODE_TEXT:
        case OPCODE_BINARY:
            if (connection->fragments_open) {
                snprintf(error, error_size, "the server began a message inside a fragmented one");
                return MESSAGE_FAILED;
            }
            if (frame.final) {
                *message = frame.payload;
                *length = frame.length;
                return MESSAGE_READY;
            }
            connection->fragments_open = 1;
            buffer_append(&connection->fragments, frame.payload, frame.length);
            continue;
        case OPCODE_CONTINUATION:
            if (!connection->fragments_open) {
                snprintf(error, error_size, "the server sent a continuation frame outside a message");
                return MESSAGE_FAILED;
            }
            buffer_append(&connection->fragments, frame.payload, frame.length);
            if (!frame.final) continue;
            connection->fragments_open = -1;
            *message = connection->fragments.bytes;
            *length = connection->fragments.length;
            return MESSAGE_READY;
        default:
            snprintf(error, error_size, "the server sent a frame with unknown opcode %d", frame.opcode);
            return MESSAGE_FAILED;
        }
    }
}

int connection_receive(
    struct connection *connection, int timeout_ms, const uint8_t **message, size_t *length, char *error, size_t error_size) {
    for (;;) {
        enum message_result result = connection_next_message(connection, message, length, error, error_size);
        if (result == MESSAGE_READY) return 0;
        if (result == MESSAGE_FAILED) return -1;
        if (connection_flush(connection) != 0) {
            snprintf(error, error_size, "cannot write: %s", strerror(errno));
            return -1;
        }
        struct pollfd waiting = {.fd = connection->fd, .events = POLLIN};
        int ready = poll(&waiting, 1, timeout_ms);
        if (ready == 0) {
            snprintf(error, error_size, "no message within %d ms", timeout_ms);
            return -1;
        }
        if (ready < 0 && errno == EINTR) continue;
        long count = ready < 0 ? -1 : connection_fill(connection);
        if (count == CONNECTION_WOULD_BLOCK) continue;
        if (count <= 0) {
            snprintf(error, error_size, "%s", count == 0 ? "the server closed the connection" : strerror(errno));
            return -1;
        }
    }
}

void connection_close(struct connection *connection) {
    if (connection->fd >= 0) {
        static const uint8_t normal_closure[2] = {0x03, 0xE8};
        frame_append_masked(&connection->out, OPCODE_CLOSE, normal_closure, sizeof normal_closure, next_mask(connection));
        connection_flush(connection);
        close(connection->fd);
        connection->fd = -1;
    }
    buffer_free(&connection->in);
    buffer_free(&connection->out);
    buffer_free(&connection->fragments);
}
