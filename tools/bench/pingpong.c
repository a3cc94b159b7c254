/*
 * pingpong.c: the C reference for the round-trip benchmark, and the client for every variant.
 *
 * What is measured: the time from writing one small frame on a loopback TCP socket
 * (TCP_NODELAY) to having read the whole answer frame back, with clock_gettime(CLOCK_MONOTONIC)
 * around each round trip; p50, p99 and mean in microseconds.
 *
 *   pingpong server PORT
 *       The floor: blocking read of one frame (12-byte header, then the payload it declares),
 *       write it back; one connection, until EOF.
 *   pingpong eserver PORT
 *       The fair reference for the daemons: what they do, in C. Nonblocking listener and
 *       connections in one epoll loop (level-triggered, like the Reactor), each connection with
 *       an input buffer parsed into whole frames and an output buffer flushed on EPOLLOUT when
 *       the socket is full. Echoes every frame; ends when its last connection closes.
 *   pingpong client [--raw PREFIX] [--baton IN OUT] N WARMUP BLOCK TARGET...
 *       TARGET is echo:PORT (blocking socket; sends the 17-byte MOVE frame of Protocol.md §6 and
 *       expects the same 17 bytes back: `server`, `eserver` or `tictac-bench echo`), epoll:PORT
 *       (the same frame, but the client's socket is nonblocking and it waits in epoll_wait, as a
 *       daemon does: with `eserver` both ends are the daemons' kind of loop) or daemon:PORT (handshakes
 *       with a tictac daemon by HELLO and PROOF (Ed25519 through OpenSSL's libcrypto), then sends PING(nonce), 23 bytes, and expects PONG(nonce):
 *       the daemon's decode -> DaemonCore -> encode -> send path).
 *       WARMUP untimed round trips per target, then N timed per target; the targets take turns
 *       in blocks of BLOCK, so load from elsewhere on the machine hits all of them alike. With
 *       --baton, each round of blocks waits for a byte on the fifo IN and then writes one to OUT:
 *       the rounds alternate with `tictac-bench moves` (tools/bench/run), so the C pairs and the
 *       daemons are timed in the same stretches of the machine's load. sealed:PORT (against
 *       `seserver`) is epoll:PORT with version 2's stream: the client seals the MOVE and opens the
 *       answer, the server opens and seals (seal.c), as two version-2 daemons do.
 *   pingpong seserver PORT
 *       eserver, sealing: the fair reference for version 2's round trip (seal.c).
 *   pingpong hserver PORT N / pingpong hclient PORT N
 *       The handshake reference (seal.c): N handshakes of Protocol.md §4, version 2, one after
 *       the other, each on a new connection; the client prints handshakes_per_s and hs_p50_us.
 *
 * The client is the same code for every server, so only the server side differs. It retries
 * connect for 10 s (a server may still be starting). Every loop is bounded.
 * Output: one line per target, in order: "target=I p50_us=X p99_us=Y mean_us=Z n=N"; with
 * --raw, target I's samples also go to PREFIX.I, one round trip in ns a line, in the order taken
 * (tools/bench/run pools the samples of several runs before taking percentiles).
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "seal.h"

void die(const char *what) { perror(what); exit(1); }

uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void nodelay(int fd) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) die("TCP_NODELAY");
}

void nonblocking(int fd) {
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) die("O_NONBLOCK");
}

/* Reads exactly n bytes; 0 on EOF before them. */
static int read_full(int fd, uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r <= 0) return 0;
        p += r;
        n -= (size_t)r;
    }
    return 1;
}

void write_full(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) die("write");
        p += w;
        n -= (size_t)w;
    }
}

/* One frame: header, then the payload its length declares (at most 16384, Protocol.md §2).
   Returns the total length, 0 on EOF. */
size_t read_frame(int fd, uint8_t *buf) {
    if (!read_full(fd, buf, 12)) return 0;
    uint32_t len = (uint32_t)buf[8] << 24 | (uint32_t)buf[9] << 16 | (uint32_t)buf[10] << 8 | buf[11];
    if (len > 16384 || !read_full(fd, buf + 12, len)) return 0;
    return 12 + len;
}

/* A TCP listener on 127.0.0.1:PORT; `type` is SOCK_STREAM, with SOCK_NONBLOCK or not. */
int listen_loopback(int port, int type, int backlog) {
    int l = socket(AF_INET, type, 0), one = 1;
    if (l < 0) die("socket");
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, backlog) != 0) die("bind/listen");
    return l;
}

struct target {
    const char *label;
    int fd, daemon, epoll, sealed, ep, count;
    struct sealer sealer, opener; /* sealed:PORT: ours seals with K_d, opens with K_a */
    uint64_t seq, *t;
};

static void handshake(int fd);

/* Opens a target ("echo:PORT" or "daemon:PORT"); a daemon is sent HELLO and its HELLO awaited. */
static void open_target(struct target *g, char *spec, int n) {
    char *colon = strchr(spec, ':');
    if (!colon) { fprintf(stderr, "pingpong: target must be echo:PORT or daemon:PORT\n"); exit(2); }
    *colon = 0;
    g->label = spec;
    g->daemon = strcmp(spec, "daemon") == 0;
    g->sealed = strcmp(spec, "sealed") == 0;
    g->epoll = g->sealed || strcmp(spec, "epoll") == 0;
    if (g->sealed) {
        sealer_init(&g->sealer, 0);
        sealer_init(&g->opener, 1);
    }
    g->fd = dial(atoi(colon + 1));
    g->ep = -1;
    if (g->epoll) {
        nonblocking(g->fd);
        g->ep = epoll_create1(0);
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = g->fd};
        if (g->ep < 0 || epoll_ctl(g->ep, EPOLL_CTL_ADD, g->fd, &ev) != 0) die("epoll");
    }
    g->count = 0;
    g->seq = 0;
    g->t = malloc(sizeof(uint64_t) * (size_t)n);
    if (!g->t) die("malloc");
    if (g->daemon) handshake(g->fd);
}

/* Appends a TLV field (Protocol.md §3). */
size_t tlv(uint8_t *p, uint8_t tag, const void *v, uint16_t n) {
    p[0] = tag; p[1] = (uint8_t)(n >> 8); p[2] = (uint8_t)n;
    memcpy(p + 3, v, n);
    return 3 + (size_t)n;
}

/* Writes a frame: the 12-byte header (Protocol.md §2), version 1, then the payload. */
static void send_frame(int fd, uint8_t type, const uint8_t *payload, size_t n) {
    uint8_t f[12 + 512] = {0x54, 0x54, 0x41, 0x43, 1, type, 0, 0,
                           (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
    memcpy(f + 12, payload, n);
    write_full(fd, f, 12 + n);
}

/* Finds field `tag` of `size` bytes in a frame's payload; NULL when absent. */
const uint8_t *field(const uint8_t *frame, size_t len, uint8_t tag, uint16_t size) {
    size_t i = 12;
    while (i + 3 <= len) {
        uint16_t n = (uint16_t)(frame[i + 1] << 8 | frame[i + 2]);
        if (i + 3 + n > len) return NULL;
        if (frame[i] == tag && n == size) return frame + i + 3;
        i += 3 + n;
    }
    return NULL;
}

/* The handshake of Protocol.md §4 as the dialler: HELLO with a fresh Ed25519 key and nonce,
 * the daemon's HELLO, our PROOF over the 80-byte transcript, then the daemon's PROOF. */
static void handshake(int fd) {
    EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    uint8_t pub[32], id[16], nonce[16], digest[32], label[] = "tictac-instance-id-v1";
    size_t publen = sizeof pub;
    if (!key || !EVP_PKEY_get_raw_public_key(key, pub, &publen) || RAND_bytes(nonce, 16) != 1) die("ed25519 key");
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, label, 21);
    SHA256_Update(&c, pub, 32);
    SHA256_Final(digest, &c);
    memcpy(id, digest, 16);
    uint8_t hello[128], v = 1, caps[4] = {0, 0, 0, 1};
    size_t n = 0;
    n += tlv(hello + n, 1, &v, 1);
    n += tlv(hello + n, 2, &v, 1);
    n += tlv(hello + n, 3, id, 16);
    n += tlv(hello + n, 4, "bench", 5);
    n += tlv(hello + n, 5, caps, 4);
    n += tlv(hello + n, 6, pub, 32);
    n += tlv(hello + n, 7, nonce, 16);
    send_frame(fd, 0x01, hello, n);
    uint8_t buf[12 + 16384];
    size_t got = read_frame(fd, buf);
    const uint8_t *their_id = got ? field(buf, got, 3, 16) : NULL, *their_nonce = got ? field(buf, got, 7, 16) : NULL;
    if (!got || buf[5] != 0x01 || !their_id || !their_nonce) {
        fprintf(stderr, "pingpong: no HELLO from the daemon\n");
        exit(1);
    }
    uint8_t transcript[80], sig[64];
    size_t siglen = sizeof sig;
    memcpy(transcript, "tictac-proof-v1", 15);
    transcript[15] = 1;
    memcpy(transcript + 16, id, 16);
    memcpy(transcript + 32, nonce, 16);
    memcpy(transcript + 48, their_id, 16);
    memcpy(transcript + 64, their_nonce, 16);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!md || EVP_DigestSignInit(md, NULL, NULL, NULL, key) != 1 ||
        EVP_DigestSign(md, sig, &siglen, transcript, sizeof transcript) != 1) die("ed25519 sign");
    EVP_MD_CTX_free(md);
    EVP_PKEY_free(key);
    uint8_t proof[67];
    send_frame(fd, 0x06, proof, tlv(proof, 1, sig, 64));
    for (;;) { /* the daemon's PROOF (a PING may come first) */
        got = read_frame(fd, buf);
        if (!got) { fprintf(stderr, "pingpong: the daemon closed during the handshake\n"); exit(1); }
        if (buf[5] == 0x06) return;
        if (buf[5] == 0x03) { buf[5] = 0x04; write_full(fd, buf, got); continue; }
        if (buf[5] == 0x02) { fprintf(stderr, "pingpong: the daemon refused the handshake\n"); exit(1); }
    }
}

/* The epoll client's round trip: a nonblocking send (a 17-byte frame always fits an empty
   socket buffer), then epoll_wait and recv until the whole echo is in; 0 on EOF or error. */
static size_t epoll_exchange(struct target *g, const uint8_t *msg, size_t len, uint8_t *buf) {
    if (send(g->fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len) die("send");
    size_t got = 0;
    while (got < len) {
        struct epoll_event ev;
        int n = epoll_wait(g->ep, &ev, 1, 10000);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        ssize_t r = recv(g->fd, buf + got, 12 + 16384 - got, 0);
        if (r == 0) return 0;
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            return 0;
        }
        got += (size_t)r;
    }
    return got;
}

/* One timed round trip: MOVE echoed (17 bytes), or PING(seq) answered by PONG(seq) (23 bytes). */
static uint64_t round_trip(struct target *g) {
    /* MOVE cell 4: the 17-byte frame of Protocol.md §6. */
    static const uint8_t move[17] = {0x54, 0x54, 0x41, 0x43, 1, 0x24, 0, 0, 0, 0, 0, 5, 1, 0, 2, 0, 4};
    /* PING: header (type 3, length 11), tag 1, length 8, then the nonce. */
    uint8_t ping[23] = {0x54, 0x54, 0x41, 0x43, 1, 0x03, 0, 0, 0, 0, 0, 11, 1, 0, 8};
    uint8_t buf[12 + 16384];
    const uint8_t *msg = move;
    size_t len = sizeof move, got;
    if (g->daemon) {
        g->seq++;
        for (int b = 0; b < 8; b++) ping[15 + b] = (uint8_t)(g->seq >> (56 - 8 * b));
        msg = ping;
        len = sizeof ping;
    }
    uint64_t t0 = now_ns();
    if (g->sealed) { /* the same MOVE, sealed both ways (33 bytes) */
        uint8_t sealed[17 + 16];
        memcpy(sealed, msg, len);
        size_t n = seal_frame(&g->sealer, sealed, len);
        got = epoll_exchange(g, sealed, n, buf);
        got = got == n ? open_frame(&g->opener, buf, got) : 0;
        uint64_t t1 = now_ns();
        if (got != len || memcmp(buf, msg, len) != 0) {
            fprintf(stderr, "pingpong: unexpected answer from %s\n", g->label);
            exit(1);
        }
        return t1 - t0;
    }
    if (g->epoll) {
        got = epoll_exchange(g, msg, len, buf);
        uint64_t t1 = now_ns();
        if (got != len || memcmp(buf, msg, len) != 0) {
            fprintf(stderr, "pingpong: unexpected answer from %s\n", g->label);
            exit(1);
        }
        return t1 - t0;
    }
    write_full(g->fd, msg, len);
    for (;;) {
        got = read_frame(g->fd, buf);
        if (got == 0) { fprintf(stderr, "pingpong: %s closed the connection\n", g->label); exit(1); }
        /* The daemon pings us after a silence (Protocol.md §6): answer and keep waiting. */
        if (g->daemon && buf[5] == 0x03) { buf[5] = 0x04; write_full(g->fd, buf, got); continue; }
        break;
    }
    uint64_t t1 = now_ns();
    if (got != len || (g->daemon ? buf[5] != 0x04 || memcmp(buf + 12, msg + 12, 11) != 0
                                 : memcmp(buf, msg, len) != 0)) {
        fprintf(stderr, "pingpong: unexpected answer from %s\n", g->label);
        exit(1);
    }
    return t1 - t0;
}

/* With a baton (--baton IN OUT, two fifos), each round of blocks waits for a byte from IN first,
   makes one untimed round trip per target (the caches as the other process left them), and writes
   a byte to OUT after it: the turns alternate with another process (`tictac-bench moves`), timed
   in the same stretches of the machine's load. IN is opened first, as the other side opens its end
   of it first. */
static void baton_wait(int fd) {
    uint8_t byte;
    for (;;) {
        ssize_t r = read(fd, &byte, 1);
        if (r == 1) return;
        if (r < 0 && errno == EINTR) continue;
        fprintf(stderr, "pingpong: the baton's other side ended\n");
        exit(1);
    }
}

/* Targets take turns in blocks of BLOCK round trips, so a burst of load on this shared machine
   hits them all alike instead of skewing whichever ran at that moment. */
static int client(const char *raw, const char *baton_in, const char *baton_out, int n, int warmup, int block,
                  int count, char **specs) {
    struct target g[8];
    for (int i = 0; i < count; i++) open_target(&g[i], specs[i], n);
    for (int i = 0; i < count; i++)
        for (int w = 0; w < warmup; w++) round_trip(&g[i]);
    int in = -1, out = -1;
    if (baton_in) {
        if ((in = open(baton_in, O_RDONLY)) < 0) die(baton_in);
        if ((out = open(baton_out, O_WRONLY)) < 0) die(baton_out);
    }
    for (int done = 0; done < n; done += block) {
        if (in >= 0) {
            baton_wait(in);
            for (int i = 0; i < count; i++) round_trip(&g[i]); /* untimed: the caches as the other side left them */
        }
        for (int i = 0; i < count; i++)
            for (int k = 0; k < block && g[i].count < n; k++) g[i].t[g[i].count++] = round_trip(&g[i]);
        uint8_t byte = 1;
        if (out >= 0 && write(out, &byte, 1) != 1) die(baton_out);
    }
    for (int i = 0; i < count; i++) {
        if (raw) {
            char path[4096];
            snprintf(path, sizeof path, "%s.%d", raw, i);
            FILE *f = fopen(path, "w");
            if (!f) die(path);
            for (int k = 0; k < n; k++) fprintf(f, "%llu\n", (unsigned long long)g[i].t[k]);
            if (fclose(f) != 0) die(path);
        }
        uint64_t sum = 0;
        for (int k = 0; k < n; k++) sum += g[i].t[k];
        qsort(g[i].t, (size_t)n, sizeof g[i].t[0], cmp_u64);
        printf("target=%d p50_us=%.2f p99_us=%.2f mean_us=%.2f n=%d\n", i, g[i].t[n / 2] / 1e3,
               g[i].t[(size_t)n * 99 / 100] / 1e3, (double)sum / n / 1e3, n);
        close(g[i].fd);
        if (g[i].ep >= 0) close(g[i].ep);
        free(g[i].t);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "server") == 0) return server(atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "eserver") == 0) return epoll_server(atoi(argv[2]), 0);
    if (argc == 3 && strcmp(argv[1], "seserver") == 0) return epoll_server(atoi(argv[2]), 1);
    if (argc == 4 && strcmp(argv[1], "hserver") == 0) return handshake_server(atoi(argv[2]), atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "hclient") == 0) return handshake_client(atoi(argv[2]), atoi(argv[3]));
    const char *raw = NULL, *baton_in = NULL, *baton_out = NULL;
    int a = 2; /* the client's options, then N WARMUP BLOCK TARGET... */
    while (argc >= 2 && strcmp(argv[1], "client") == 0 && a < argc && strncmp(argv[a], "--", 2) == 0) {
        if (strcmp(argv[a], "--raw") == 0 && a + 1 < argc) {
            raw = argv[a + 1];
            a += 2;
        } else if (strcmp(argv[a], "--baton") == 0 && a + 2 < argc) {
            baton_in = argv[a + 1];
            baton_out = argv[a + 2];
            a += 3;
        } else {
            a = argc; /* unknown option: usage */
        }
    }
    if (argc - a >= 4 && argc - a <= 11 && strcmp(argv[1], "client") == 0) {
        int n = atoi(argv[a]), warmup = atoi(argv[a + 1]), block = atoi(argv[a + 2]);
        if (n < 1 || n > 10000000 || warmup < 0 || block < 1) { fprintf(stderr, "pingpong: bad counts\n"); return 2; }
        return client(raw, baton_in, baton_out, n, warmup, block, argc - a - 3, argv + a + 3);
    }
    fprintf(stderr, "usage: pingpong server|eserver|seserver PORT | pingpong hserver|hclient PORT N | pingpong client [--raw PREFIX] "
                    "[--baton IN OUT] N WARMUP BLOCK echo:PORT|epoll:PORT|sealed:PORT|daemon:PORT...\n");
    return 2;
}
