/* seal.h: the C references for version 2 (Protocol.md §4): the authenticated stream's sealing
 * and the handshake's cryptography, through libsodium. See seal.c. */
#include <stddef.h>
#include <stdint.h>

/* pingpong.c's helpers, shared with seal.c. */
void die(const char *what);
uint64_t now_ns(void);
void nodelay(int fd);
void nonblocking(int fd);
void write_full(int fd, const uint8_t *p, size_t n);
size_t read_frame(int fd, uint8_t *buf);
int dial(int port);
int listen_loopback(int port, int type, int backlog);
int cmp_u64(const void *a, const void *b);
size_t tlv(uint8_t *p, uint8_t tag, const void *v, uint16_t n);
const uint8_t *field(const uint8_t *frame, size_t len, uint8_t tag, uint16_t size);
/* pingserve.c: the blocking echo server, and the epoll one (`sealed`: opened and sealed). */
int server(int port);
int epoll_server(int port, int sealed);

/* One direction of a sealed stream: its key and its frame counter (the nonce). */
struct sealer {
    uint8_t key[32];
    uint64_t counter;
};

/* The bench's fixed keys: K_d seals the client's frames, K_a the server's. The keys' making is
 * the handshake reference's to time, not the round trip's. */
void sealer_init(struct sealer *s, int acceptor_to_dialler);

/* Seals the whole frame at `frame` (header and payload, `len` bytes) in place: the payload
 * encrypted, the 16-byte tag appended, the header's length raised by 16. Returns the new length. */
size_t seal_frame(struct sealer *s, uint8_t *frame, size_t len);

/* Opens a sealed frame in place; returns the plain frame's length (the header's length lowered
 * by 16), 0 when it does not open. */
size_t open_frame(struct sealer *s, uint8_t *frame, size_t len);

/* The handshake reference: `hserver PORT` answers handshakes one connection at a time until
 * `count` were done; `hclient PORT N` makes N, one after the other, and prints the rate. */
int handshake_server(int port, int count);
int handshake_client(int port, int count);
