/*
 * pingpong.c: the C reference for the round-trip benchmark, and the client for every variant.
 *
 * What is measured: the time from writing one small frame on a loopback TCP socket
 * (TCP_NODELAY, blocking) to having read the whole answer frame back, with
 * clock_gettime(CLOCK_MONOTONIC) around each round trip; p50, p99 and mean in microseconds.
 *
 *   pingpong server PORT
 *       The C reference server: blocking read of one frame (12-byte header, then the payload it
 *       declares), write it back; one connection, until EOF.
 *   pingpong client N WARMUP BLOCK TARGET...
 *       TARGET is echo:PORT (sends the 17-byte MOVE frame of Protocol.md §6 and expects the same
 *       17 bytes back: the C server above, or `tictac-bench echo`) or daemon:PORT (handshakes
 *       with a tictac daemon by HELLO, then sends PING(nonce), 23 bytes, and expects PONG(nonce):
 *       the daemon's decode -> DaemonCore -> encode -> send path).
 *       WARMUP untimed round trips per target, then N timed per target; the targets take turns
 *       in blocks of BLOCK, so load from elsewhere on the machine hits all of them alike.
 *
 * The client is the same code for every server, so only the server side differs. It retries
 * connect for 3 s (a server may still be starting). Every loop is bounded.
 * Output: one line per target, in order: "target=I p50_us=X p99_us=Y mean_us=Z n=N".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) { perror(what); exit(1); }

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void nodelay(int fd) {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) die("TCP_NODELAY");
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

static void write_full(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) die("write");
        p += w;
        n -= (size_t)w;
    }
}

/* One frame: header, then the payload its length declares (at most 16384, Protocol.md §2).
   Returns the total length, 0 on EOF. */
static size_t read_frame(int fd, uint8_t *buf) {
    if (!read_full(fd, buf, 12)) return 0;
    uint32_t len = (uint32_t)buf[8] << 24 | (uint32_t)buf[9] << 16 | (uint32_t)buf[10] << 8 | buf[11];
    if (len > 16384 || !read_full(fd, buf + 12, len)) return 0;
    return 12 + len;
}

static int server(int port) {
    alarm(120); /* bounded: SIGALRM ends a server whose client never came or never left */
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (l < 0) die("socket");
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0) die("bind/listen");
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

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int dial(int port) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    for (int attempt = 0; attempt < 300; attempt++) { /* 300 x 10 ms */
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) die("socket");
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) { nodelay(fd); return fd; }
        close(fd);
        usleep(10000);
    }
    die("connect");
    return -1;
}

struct target {
    const char *label;
    int fd, daemon, count;
    uint64_t seq, *t;
};

/* Opens a target ("echo:PORT" or "daemon:PORT"); a daemon is sent HELLO and its HELLO awaited. */
static void open_target(struct target *g, char *spec, int n) {
    char *colon = strchr(spec, ':');
    if (!colon) { fprintf(stderr, "pingpong: target must be echo:PORT or daemon:PORT\n"); exit(2); }
    *colon = 0;
    g->label = spec;
    g->daemon = strcmp(spec, "daemon") == 0;
    g->fd = dial(atoi(colon + 1));
    g->count = 0;
    g->seq = 0;
    g->t = malloc(sizeof(uint64_t) * (size_t)n);
    if (!g->t) die("malloc");
    if (g->daemon) {
        /* HELLO: versions 1..1, an instance id, name "bench", capabilities tic-tac-toe. */
        uint8_t hello[54] = {0x54, 0x54, 0x41, 0x43, 1, 0x01, 0, 0, 0, 0, 0, 0x2a,
                             1, 0, 1, 1, 2, 0, 1, 1, 3, 0, 16,
                             0xbe, 0x4c, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
                             4, 0, 5, 'b', 'e', 'n', 'c', 'h', 5, 0, 4, 0, 0, 0, 1};
        uint8_t buf[12 + 16384];
        write_full(g->fd, hello, sizeof hello);
        if (read_frame(g->fd, buf) == 0 || buf[5] != 0x01) {
            fprintf(stderr, "pingpong: no HELLO from the daemon\n");
            exit(1);
        }
    }
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

/* Targets take turns in blocks of BLOCK round trips, so a burst of load on this shared machine
   hits them all alike instead of skewing whichever ran at that moment. */
static int client(int n, int warmup, int block, int count, char **specs) {
    struct target g[8];
    for (int i = 0; i < count; i++) open_target(&g[i], specs[i], n);
    for (int i = 0; i < count; i++)
        for (int w = 0; w < warmup; w++) round_trip(&g[i]);
    for (int done = 0; done < n; done += block)
        for (int i = 0; i < count; i++)
            for (int k = 0; k < block && g[i].count < n; k++) g[i].t[g[i].count++] = round_trip(&g[i]);
    for (int i = 0; i < count; i++) {
        uint64_t sum = 0;
        for (int k = 0; k < n; k++) sum += g[i].t[k];
        qsort(g[i].t, (size_t)n, sizeof g[i].t[0], cmp_u64);
        printf("target=%d p50_us=%.2f p99_us=%.2f mean_us=%.2f n=%d\n", i, g[i].t[n / 2] / 1e3,
               g[i].t[(size_t)n * 99 / 100] / 1e3, (double)sum / n / 1e3, n);
        close(g[i].fd);
        free(g[i].t);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "server") == 0) return server(atoi(argv[2]));
    if (argc >= 6 && argc <= 13 && strcmp(argv[1], "client") == 0) {
        int n = atoi(argv[2]), warmup = atoi(argv[3]), block = atoi(argv[4]);
        if (n < 1 || n > 10000000 || warmup < 0 || block < 1) { fprintf(stderr, "pingpong: bad counts\n"); return 2; }
        return client(n, warmup, block, argc - 5, argv + 5);
    }
    fprintf(stderr, "usage: pingpong server PORT | pingpong client N WARMUP BLOCK echo:PORT|daemon:PORT...\n");
    return 2;
}
