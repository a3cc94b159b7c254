/*
 * pingserve.c: pingpong's servers (see pingpong.c's usage): `server`, the blocking floor, and
 * `eserver` / `seserver`, the epoll echo in clear or sealed, the daemons' fair references.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "seal.h"

int server(int port) {
    alarm(120); /* bounded: SIGALRM ends a server whose client never came or never left */
    int l = listen_loopback(port, SOCK_STREAM, 1);
    int fd = accept(l, NULL, NULL);
    if (fd < 0) die("accept");
    nodelay(fd);
    uint8_t buf[12 + 16384];
    size_t n;
    while ((n = read_frame(fd, buf)) > 0) write_full(fd, buf, n);
    close(fd);
    close(l);
    return 0;
}

/* One connection of the epoll server: bytes read but not yet a whole frame, bytes to send. */
struct conn {
    int fd, armed; /* armed: EPOLLOUT is in its epoll set */
    int sealed;    /* `seserver`: each frame opened with K_d, its echo sealed with K_a */
    struct sealer opener, sealer;
    size_t in_len, out_len;
    uint8_t in[2 * (12 + 16384)], out[64 * 1024];
};

/* Sends what `c` has queued; 0 when the connection failed. Arms EPOLLOUT while bytes remain. */
static int flush_out(int ep, struct conn *c) {
    size_t sent = 0;
    while (sent < c->out_len) {
        ssize_t w = send(c->fd, c->out + sent, c->out_len - sent, MSG_NOSIGNAL);
        if (w > 0) { sent += (size_t)w; continue; }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        return 0;
    }
    memmove(c->out, c->out + sent, c->out_len - sent);
    c->out_len -= sent;
    if (c->armed != (c->out_len > 0)) { /* only when it changes: a syscall the common path skips */
        c->armed = c->out_len > 0;
        struct epoll_event ev = {.events = EPOLLIN | (c->armed ? EPOLLOUT : 0), .data.ptr = c};
        if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev) != 0) return 0;
    }
    return 1;
}

/* Reads what is there, echoes every whole frame into the output buffer; 0 on EOF or error. */
static int on_readable(int ep, struct conn *c) {
    for (;;) {
        ssize_t r = recv(c->fd, c->in + c->in_len, sizeof c->in - c->in_len, 0);
        if (r == 0) return 0;
        if (r < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            return 0;
        }
        c->in_len += (size_t)r;
        size_t at = 0;
        while (c->in_len - at >= 12) {
            const uint8_t *h = c->in + at;
            uint32_t len = (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
            if (len > 16384) return 0;
            if (c->in_len - at < 12 + len) break;
            if (c->out_len + 12 + len > sizeof c->out) return 0; /* the peer does not read: drop it */
            memcpy(c->out + c->out_len, h, 12 + len);
            if (c->sealed) {
                size_t plain = open_frame(&c->opener, c->out + c->out_len, 12 + len);
                if (plain == 0) return 0; /* does not open: close, as a daemon does */
                seal_frame(&c->sealer, c->out + c->out_len, plain);
            }
            c->out_len += 12 + len;
            at += 12 + len;
        }
        memmove(c->in, c->in + at, c->in_len - at);
        c->in_len -= at;
        if ((size_t)r < sizeof c->in) break; /* short read: the socket is empty (saves a recv) */
    }
    return c->out_len == 0 || flush_out(ep, c);
}

int epoll_server(int port, int sealed) {
    alarm(120); /* bounded, like server() */
    int l = listen_loopback(port, SOCK_STREAM | SOCK_NONBLOCK, 16), ep = epoll_create1(0), open = 0, served = 0;
    if (ep < 0) die("epoll");
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL}, evs[16];
    if (epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev) != 0) die("epoll_ctl");
    while (!served || open > 0) {
        int n = epoll_wait(ep, evs, 16, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("epoll_wait");
        for (int i = 0; i < n; i++) {
            struct conn *c = evs[i].data.ptr;
            if (!c) { /* the listener */
                int fd;
                while ((fd = accept4(l, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    nodelay(fd);
                    c = calloc(1, sizeof *c);
                    if (!c) die("calloc");
                    c->fd = fd;
                    if ((c->sealed = sealed)) {
                        sealer_init(&c->opener, 0);
                        sealer_init(&c->sealer, 1);
                    }
                    struct epoll_event cev = {.events = EPOLLIN, .data.ptr = c};
                    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev) != 0) die("epoll_ctl");
                    open++;
                    served = 1;
                }
                continue;
            }
            int ok = 1;
            if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) ok = on_readable(ep, c);
            if (ok && (evs[i].events & EPOLLOUT)) ok = flush_out(ep, c);
            if (!ok) {
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                close(c->fd);
                free(c);
                open--;
            }
        }
    }
    close(l);
    close(ep);
    return 0;
}

int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int dial(int port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int attempt = 0; attempt < 1000; attempt++) { /* 1000 x 10 ms (a server under valgrind starts slowly) */
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) die("socket");
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) { nodelay(fd); return fd; }
        close(fd);
        usleep(10000);
    }
    die("connect");
    return -1;
}
