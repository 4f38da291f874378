#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: storybridge-epoll-client pipelined ENDPOINT --connections N --count M [--depth D]\n"
    "                                --request TEMPLATE... [--setup TEMPLATE]... [--host-pid PID] [--timeout-ms MS]\n"
    "       storybridge-epoll-client alternating ENDPOINT ENDPOINT --count M [--block B]\n"
    "                                --request TEMPLATE [--setup TEMPLATE]... [--timeout-ms MS]\n"
    "       storybridge-epoll-client self-test\n"
    "\n"
    "A WebSocket load client in C on Linux epoll, for storybridge-bench mix: it measures the host\n"
    "with a client outside the Swift/NIO stack, so the figures do not depend on that client's costs.\n"
    "\n"
    "ENDPOINT is --echo-url URL (the host's plain echo, /__storybridge/echo) or --bridge-url URL (a\n"
    "bridge socket, /__storybridge/ws: its hello event is awaited before anything is sent, every\n"
    "answer must say \"Status\":\"Success\"). {i} in a URL becomes the connection's number.\n"
    "TEMPLATE is a request frame holding {GUID} where its GUID goes; each request gets its own\n"
    "(GUID_c<connection>_<n>), and every answer must carry exactly one GUID sent and not yet answered.\n"
    "Messages without a GUID (host events) are counted and otherwise ignored.\n"
    "\n"
    "pipelined    N connections to ENDPOINT, each sending M requests (cycling through the templates)\n"
    "             with at most D unanswered (default M: all at once); after the setup requests.\n"
    "alternating  one connection to each ENDPOINT, M round trips on each, one request at a time, in\n"
    "             blocks of B (100) that alternate between them; the first of each block is kept apart.\n"
    "self-test    checks the handshake's SHA-1 and base64 against known answers.\n"
    "\n"
    "Output: one line per measured endpoint, 'result key=value ...' (rate in answers/s, latencies in\n"
    "ms, CPU in microseconds per message); errors go to standard error with exit status 1.\n"
    "--timeout-ms: how long without any answer before the run fails (30000).\n";

static void fail_usage(const char *message, const char *argument) {
    fprintf(stderr, "storybridge-epoll-client: %s%s%s\n\n%s", message, argument ? ": " : "", argument ? argument : "", usage);
    exit(2);
}

static long positive_number(const char *flag, const char *text) {
    char *end = NULL;
    errno = 0;
    long value = text ? strtol(text, &end, 10) : 0;
    if (!text || errno != 0 || *end != '\0' || value <= 0) fail_usage("needs a positive number", flag);
    return value;
}

void options_parse(int argc, char **argv, struct options *options) {
    *options = (struct options){.depth = 0, .block = 100, .connections = 1, .timeout_ms = 30000};
    if (argc < 2) fail_usage("needs a mode", NULL);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            exit(0);
        }
    }
    if (strcmp(argv[1], "pipelined") == 0) {
        options->mode = MODE_PIPELINED;
    } else if (strcmp(argv[1], "alternating") == 0) {
        options->mode = MODE_ALTERNATING;
    } else if (strcmp(argv[1], "self-test") == 0 && argc == 2) {
        options->mode = MODE_SELF_TEST;
        return;
    } else {
        fail_usage("unknown mode", argv[1]);
    }
    for (int i = 2; i < argc; i += 2) {
        const char *flag = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(flag, "--echo-url") == 0 || strcmp(flag, "--bridge-url") == 0) {
            if (!value) fail_usage("needs a URL", flag);
            if (options->endpoint_count == 2) fail_usage("takes at most two endpoints", flag);
            options->endpoints[options->endpoint_count++] = (struct endpoint){value, strcmp(flag, "--bridge-url") == 0};
        } else if (strcmp(flag, "--request") == 0 || strcmp(flag, "--setup") == 0) {
            if (!value) fail_usage("needs a request template", flag);
            if (!strstr(value, "{GUID}") || strstr(strstr(value, "{GUID}") + 1, "{GUID}")) {
                fail_usage("a request template holds {GUID} exactly once", value);
            }
            int is_setup = strcmp(flag, "--setup") == 0;
            int *count = is_setup ? &options->setup_count : &options->request_count;
            if (*count == MAX_TEMPLATES) fail_usage("too many templates", flag);
            (is_setup ? options->setup : options->requests)[(*count)++] = value;
        } else if (strcmp(flag, "--connections") == 0) {
            long connections = positive_number(flag, value);
            if (connections > 60000) fail_usage("at most 60000 connections", value);
            options->connections = (int)connections;
        } else if (strcmp(flag, "--count") == 0) {
            options->count = positive_number(flag, value);
        } else if (strcmp(flag, "--depth") == 0) {
            options->depth = positive_number(flag, value);
        } else if (strcmp(flag, "--block") == 0) {
            options->block = positive_number(flag, value);
        } else if (strcmp(flag, "--host-pid") == 0) {
            options->host_pid = positive_number(flag, value);
        } else if (strcmp(flag, "--timeout-ms") == 0) {
            long timeout = positive_number(flag, value);
            options->timeout_ms = timeout > 3600000 ? 3600000 : (int)timeout;
        } else {
            fail_usage("unknown option", flag);
        }
    }
    int wanted_endpoints = options->mode == MODE_PIPELINED ? 1 : 2;
    if (options->endpoint_count != wanted_endpoints) {
        fail_usage(wanted_endpoints == 1 ? "pipelined takes one endpoint" : "alternating takes two endpoints", NULL);
    }
    if (options->count == 0) fail_usage("needs --count", NULL);
    if (options->request_count == 0) fail_usage("needs at least one --request", NULL);
    if (options->mode == MODE_ALTERNATING && (options->request_count != 1 || options->connections != 1)) {
        fail_usage("alternating takes one --request and one connection per endpoint", NULL);
    }
    if (options->depth == 0) options->depth = options->count;
}
