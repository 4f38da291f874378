#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

static const char success_marker[] = "\"Status\":\"Success\"";

static int fail(struct load *load, const char *format, const char *detail, long first, long second) {
    char message[sizeof load->error];
    snprintf(message, sizeof message, format, first, second);
    snprintf(load->error, sizeof load->error, "%s%s%s", message, detail ? ": " : "", detail ? detail : "");
    return -1;
}

/// `url` with every `{i}` replaced by `index`; the caller frees it.
static char *url_for_connection(const char *url, int index) {
    char number[16];
    int number_length = snprintf(number, sizeof number, "%d", index);
    size_t size = strlen(url) + 1;
    for (const char *at = strstr(url, "{i}"); at; at = strstr(at + 3, "{i}")) size += (size_t)number_length;
    char *result = malloc(size), *out = result;
    for (const char *in = url; *in;) {
        if (strncmp(in, "{i}", 3) == 0) {
            memcpy(out, number, (size_t)number_length);
            out += number_length;
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return result;
}

/// The value of the first "GUID" member of a JSON message, or NULL when it has none.
static const uint8_t *find_guid(const uint8_t *message, size_t length, size_t *guid_length) {
    static const char key[] = "\"GUID\"";
    const uint8_t *at = memmem(message, length, key, sizeof key - 1);
    if (!at) return NULL;
    const uint8_t *end = message + length;
    at += sizeof key - 1;
    while (at < end && (*at == ' ' || *at == '\t' || *at == '\r' || *at == '\n')) at++;
    if (at == end || *at++ != ':') return NULL;
    while (at < end && (*at == ' ' || *at == '\t' || *at == '\r' || *at == '\n')) at++;
    if (at == end || *at++ != '"') return NULL;
    const uint8_t *close = memchr(at, '"', (size_t)(end - at));
    if (!close) return NULL;
    *guid_length = (size_t)(close - at);
    return at;
}

/// Reads a decimal number at `*at`, moving past it; -1 when there is none.
static long read_number(const uint8_t **at, const uint8_t *end) {
    long value = -1;
    while (*at < end && **at >= '0' && **at <= '9' && value < 100000000000L) {
        value = (value < 0 ? 0 : value * 10) + (**at - '0');
        (*at)++;
    }
    return value;
}

/// Sends request number `peer->sent` of `peer`, from the templates in turn.
static void send_request(struct load *load, struct peer *peer) {
    long sequence = peer->sent;
    const struct request_template *template = &load->templates[sequence % load->template_count];
    char guid[48];
    int guid_length = snprintf(guid, sizeof guid, "GUID_c%d_%ld", peer->index, sequence);
    load->scratch.start = load->scratch.length = 0;
    buffer_append(&load->scratch, template->prefix, template->prefix_length);
    buffer_append(&load->scratch, guid, (size_t)guid_length);
    buffer_append(&load->scratch, template->suffix, template->suffix_length);
    connection_queue_text(&peer->connection, (const char *)load->scratch.bytes, load->scratch.length);
    peer->sent_at[sequence] = now_ms();
    peer->sent++;
}

static void top_up(struct load *load, struct peer *peer, long depth) {
    while (peer->sent < peer->target && peer->sent - peer->answered < depth) send_request(load, peer);
}

/// Handles one message from `peer`: an event is counted; an answer must carry a GUID this peer
/// sent and that is not answered yet. Returns 1 for an answer, 0 for an event, -1 on a failure.
static int take_message(struct load *load, struct peer *peer, const uint8_t *message, size_t length, struct samples *latencies) {
    double now = now_ms();
    char shown[200];
    snprintf(shown, sizeof shown, "%.*s", length > 190 ? 190 : (int)length, (const char *)message);
    size_t guid_length = 0;
    const uint8_t *guid = find_guid(message, length, &guid_length);
    if (!guid) {
        load->events++;
        return 0;
    }
    const uint8_t *at = guid, *end = guid + guid_length;
    static const char prefix[] = "GUID_c";
    long index = -1, sequence = -1;
    if (guid_length > sizeof prefix - 1 && memcmp(guid, prefix, sizeof prefix - 1) == 0) {
        at += sizeof prefix - 1;
        index = read_number(&at, end);
        if (at < end && *at == '_') {
            at++;
            sequence = read_number(&at, end);
        }
    }
    if (at != end || index != peer->index || sequence < 0 || sequence >= peer->sent) {
        return fail(load, "connection %ld got an answer to a GUID it did not send (%ld sent so far)", shown, peer->index, peer->sent);
    }
    if (peer->was_answered[sequence]) {
        return fail(load, "connection %ld got a second answer to request %ld", shown, peer->index, sequence);
    }
    if (peer->is_bridge && !memmem(message, length, success_marker, sizeof success_marker - 1)) {
        return fail(load, "connection %ld: the host answered request %ld with a failure", shown, peer->index, sequence);
    }
    peer->was_answered[sequence] = 1;
    peer->answered++;
    samples_append(latencies, now - peer->sent_at[sequence]);
    return 1;
}

/// Watches for writability only while bytes wait to be written.
static int watch(struct load *load, struct peer *peer) {
    int wants_writes = buffer_unread(&peer->connection.out) > 0;
    if (wants_writes == peer->watching_writes) return 0;
    struct epoll_event event = {.events = EPOLLIN | (wants_writes ? EPOLLOUT : 0), .data.ptr = peer};
    if (epoll_ctl(load->epoll_fd, EPOLL_CTL_MOD, peer->connection.fd, &event) != 0) {
        return fail(load, "epoll_ctl failed for connection %ld", strerror(errno), peer->index, 0);
    }
    peer->watching_writes = wants_writes;
    return 0;
}

/// Sends the setup requests on a blocking connection, one at a time, each answered before the next.
static int run_setup(struct load *load, struct peer *peer, const struct options *options) {
    for (int s = 0; s < options->setup_count; s++) {
        const char *template = options->setup[s];
        const char *marker = strstr(template, "{GUID}");
        char guid[48];
        snprintf(guid, sizeof guid, "GUID_s%d_%d", peer->index, s);
        load->scratch.start = load->scratch.length = 0;
        buffer_append(&load->scratch, template, (size_t)(marker - template));
        buffer_append(&load->scratch, guid, strlen(guid));
        buffer_append(&load->scratch, marker + 6, strlen(marker + 6));
        connection_queue_text(&peer->connection, (const char *)load->scratch.bytes, load->scratch.length);
        for (;;) {
            const uint8_t *message;
            size_t length, guid_length = 0;
            char reason[256];
            if (connection_receive(&peer->connection, options->timeout_ms, &message, &length, reason, sizeof reason) != 0) {
                return fail(load, "connection %ld: no answer to setup request %ld", reason, peer->index, s);
            }
            const uint8_t *answer_guid = find_guid(message, length, &guid_length);
            if (!answer_guid) continue;  // an event
            char shown[200];
            snprintf(shown, sizeof shown, "%.*s", length > 190 ? 190 : (int)length, (const char *)message);
            if (guid_length != strlen(guid) || memcmp(answer_guid, guid, guid_length) != 0) {
                return fail(load, "connection %ld: setup request %ld got someone else's answer", shown, peer->index, s);
            }
            if (peer->is_bridge && !memmem(message, length, success_marker, sizeof success_marker - 1)) {
                return fail(load, "connection %ld: setup request %ld failed", shown, peer->index, s);
            }
            break;
        }
    }
    return 0;
}

int load_open(struct load *load, const struct options *options, long capacity) {
    *load = (struct load){.timeout_ms = options->timeout_ms};
    for (int t = 0; t < options->request_count; t++) {
        const char *marker = strstr(options->requests[t], "{GUID}");
        load->templates[t] = (struct request_template){
            options->requests[t], (size_t)(marker - options->requests[t]), marker + 6, strlen(marker + 6)};
    }
    load->template_count = options->request_count;
    load->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (load->epoll_fd < 0) return fail(load, "epoll_create1 failed", strerror(errno), 0, 0);
    int count = options->mode == MODE_PIPELINED ? options->connections : options->endpoint_count;
    load->peers = calloc((size_t)count, sizeof *load->peers);
    for (int i = 0; i < count; i++) {
        struct peer *peer = &load->peers[i];
        const struct endpoint *endpoint = &options->endpoints[options->mode == MODE_PIPELINED ? 0 : i];
        char *url = url_for_connection(endpoint->url, i);
        char reason[512];
        int opened = connection_open(&peer->connection, url, reason, sizeof reason);
        free(url);
        if (opened != 0) return fail(load, "connection %ld", reason, i, 0);
        load->peer_count = i + 1;
        peer->index = i;
        peer->is_bridge = endpoint->is_bridge;
        peer->capacity = capacity;
        peer->sent_at = malloc((size_t)capacity * sizeof *peer->sent_at);
        peer->was_answered = calloc((size_t)capacity, 1);
        if (!peer->sent_at || !peer->was_answered) return fail(load, "out of memory for %ld requests", NULL, capacity, 0);
        if (peer->is_bridge) {
            const uint8_t *hello;
            size_t length;
            if (connection_receive(&peer->connection, options->timeout_ms, &hello, &length, reason, sizeof reason) != 0) {
                return fail(load, "connection %ld: no hello from the bridge", reason, i, 0);
            }
        }
        if (run_setup(load, peer, options) != 0) return -1;
        if (connection_set_nonblocking(&peer->connection) != 0) return fail(load, "connection %ld", strerror(errno), i, 0);
        struct epoll_event event = {.events = EPOLLIN, .data.ptr = peer};
        if (epoll_ctl(load->epoll_fd, EPOLL_CTL_ADD, peer->connection.fd, &event) != 0) {
            return fail(load, "epoll_ctl failed for connection %ld", strerror(errno), i, 0);
        }
    }
    return 0;
}

/// Reads what `peer` has and handles every whole message; the answers taken, or -1.
static long drain(struct load *load, struct peer *peer, struct samples *latencies) {
    long got = connection_fill(&peer->connection);
    if (got == 0 || got == -1) {
        return fail(load, "connection %ld lost with %ld answers outstanding", got == 0 ? "closed by the server" : strerror(errno),
                    peer->index, peer->sent - peer->answered);
    }
    long answers = 0;
    for (;;) {
        const uint8_t *message;
        size_t length;
        char reason[256];
        enum message_result result = connection_next_message(&peer->connection, &message, &length, reason, sizeof reason);
        if (result == MESSAGE_NONE) return answers;
        if (result == MESSAGE_FAILED) return fail(load, "connection %ld", reason, peer->index, 0);
        int taken = take_message(load, peer, message, length, latencies);
        if (taken < 0) return -1;
        answers += taken;
    }
}

int load_run(struct load *load, struct peer **active, int count, long per_peer, long depth, struct samples *latencies) {
    long outstanding = 0;
    for (int i = 0; i < count; i++) {
        struct peer *peer = active[i];
        if (peer->target + per_peer > peer->capacity) return fail(load, "connection %ld may send %ld requests in all", NULL, peer->index, peer->capacity);
        peer->target += per_peer;
        outstanding += per_peer;
        top_up(load, peer, depth);
        if (connection_flush(&peer->connection) != 0) return fail(load, "connection %ld: cannot write", strerror(errno), peer->index, 0);
        if (watch(load, peer) != 0) return -1;
    }
    double last_answer = now_ms();
    struct epoll_event events[256];
    while (outstanding > 0) {
        int ready = epoll_wait(load->epoll_fd, events, 256, 1000);
        if (ready < 0) {
            if (errno == EINTR) continue;
            return fail(load, "epoll_wait failed", strerror(errno), 0, 0);
        }
        for (int e = 0; e < ready; e++) {
            struct peer *peer = events[e].data.ptr;
            if (events[e].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
                long answers = drain(load, peer, latencies);
                if (answers < 0) return -1;
                if (answers > 0) last_answer = now_ms();
                outstanding -= answers;
                top_up(load, peer, depth);
            }
            if (connection_flush(&peer->connection) != 0) {
                return fail(load, "connection %ld: cannot write", strerror(errno), peer->index, 0);
            }
            if (watch(load, peer) != 0) return -1;
        }
        if (outstanding > 0 && now_ms() - last_answer > load->timeout_ms) {
            return fail(load, "%ld answers missing after %ld ms without an answer", NULL, outstanding, load->timeout_ms);
        }
    }
    return 0;
}

void load_close(struct load *load) {
    for (int i = 0; i < load->peer_count; i++) {
        connection_close(&load->peers[i].connection);
        free(load->peers[i].sent_at);
        free(load->peers[i].was_answered);
    }
    free(load->peers);
    buffer_free(&load->scratch);
    if (load->epoll_fd >= 0) close(load->epoll_fd);
    *load = (struct load){.epoll_fd = -1};
}
