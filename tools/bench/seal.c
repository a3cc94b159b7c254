/*
 * seal.c: what version 2 adds to a daemon's work (Protocol.md §4), in C with libsodium (faster
 * here than OpenSSL 3's libcrypto for all four primitives: X25519 41 against 77 us, Ed25519 sign
 * 31 against 76 us, verify 89 against 174 us), for the benchmark's fair references:
 *
 * - the authenticated stream: ChaCha20-Poly1305 (RFC 8439) over a whole frame in place, the
 *   header as associated data, the nonce four zero bytes then the direction's counter (u64,
 *   big-endian) (`pingpong seserver` and the client's `sealed:PORT` target);
 * - the handshake: per connection, a fresh X25519 key and nonce, HELLO (fields 1-8) both ways,
 *   the instance id checked against the peer's Ed25519 key (SHA-256), PROOF over the 144-byte
 *   transcript signed by each side and verified by the other, then the key schedule (X25519,
 *   SHA-256 of the 146-byte session, HKDF-SHA256 for K_d and K_a). `pingpong hserver` and
 *   `pingpong hclient` do it over loopback TCP one connection after the other, blocking sockets.
 */
#include "seal.h"
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void sealer_init(struct sealer *s, int acceptor_to_dialler) {
    if (sodium_init() < 0) die("libsodium");
    memset(s->key, acceptor_to_dialler ? 0xa5 : 0xd5, sizeof s->key);
    s->counter = 0;
}

static void nonce(struct sealer *s, uint8_t n[12]) {
    memset(n, 0, 4);
    for (int b = 0; b < 8; b++) n[4 + b] = (uint8_t)(s->counter >> (56 - 8 * b));
    s->counter++;
}

static void set_length(uint8_t *h, uint32_t len) {
    h[8] = (uint8_t)(len >> 24); h[9] = (uint8_t)(len >> 16); h[10] = (uint8_t)(len >> 8); h[11] = (uint8_t)len;
}

size_t seal_frame(struct sealer *s, uint8_t *frame, size_t len) {
    uint8_t n[12];
    nonce(s, n);
    set_length(frame, (uint32_t)(len - 12 + 16));
    crypto_aead_chacha20poly1305_ietf_encrypt_detached(frame + 12, frame + len, NULL, frame + 12, len - 12, frame, 12,
                                                       NULL, n, s->key);
    return len + 16;
}

size_t open_frame(struct sealer *s, uint8_t *frame, size_t len) {
    uint8_t n[12];
    if (len < 12 + 16) return 0;
    nonce(s, n);
    if (crypto_aead_chacha20poly1305_ietf_decrypt_detached(frame + 12, NULL, frame + 12, len - 12 - 16, frame + len - 16,
                                                           frame, 12, n, s->key) != 0) return 0;
    set_length(frame, (uint32_t)(len - 12 - 16));
    return len - 16;
}

/* ---- the handshake ---------------------------------------------------------------------- */

/* One side: its lasting Ed25519 identity (made before any clock starts) and, per connection,
   its X25519 key and nonce. */
struct side {
    uint8_t secret[64], pub[32], id[16], nonce[16], eph_secret[32], eph[32];
};

static void instance_id(const uint8_t pub[32], uint8_t id[16]) {
    uint8_t digest[32];
    crypto_hash_sha256_state c;
    crypto_hash_sha256_init(&c);
    crypto_hash_sha256_update(&c, (const uint8_t *)"tictac-instance-id-v1", 21);
    crypto_hash_sha256_update(&c, pub, 32);
    crypto_hash_sha256_final(&c, digest);
    memcpy(id, digest, 16);
}

static void make_identity(struct side *s) {
    if (sodium_init() < 0) die("libsodium");
    crypto_sign_keypair(s->pub, s->secret);
    instance_id(s->pub, s->id);
}

static void fresh(struct side *s) {
    randombytes_buf(s->eph_secret, 32);
    crypto_scalarmult_base(s->eph, s->eph_secret);
    randombytes_buf(s->nonce, 8);
    memcpy(s->nonce + 8, "TTAC\0\0\0\2", 8);
}

static void send_hello(int fd, const struct side *s) {
    uint8_t f[12 + 160], v1 = 1, v2 = 2, caps[4] = {0, 0, 0, 1};
    size_t n = 12;
    n += tlv(f + n, 1, &v1, 1);
    n += tlv(f + n, 2, &v2, 1);
    n += tlv(f + n, 3, s->id, 16);
    n += tlv(f + n, 4, "hs", 2);
    n += tlv(f + n, 5, caps, 4);
    n += tlv(f + n, 6, s->pub, 32);
    n += tlv(f + n, 7, s->nonce, 16);
    n += tlv(f + n, 8, s->eph, 32);
    memcpy(f, "TTAC\1\1\0\0", 8);
    set_length(f, (uint32_t)(n - 12));
    write_full(fd, f, n);
}

/* The peer's HELLO: its id (checked against its key), key, nonce and ephemeral key. */
static int read_hello(int fd, uint8_t *buf, struct side *peer) {
    size_t got = read_frame(fd, buf);
    const uint8_t *id = got ? field(buf, got, 3, 16) : NULL, *pub = got ? field(buf, got, 6, 32) : NULL,
                  *nonce = got ? field(buf, got, 7, 16) : NULL, *eph = got ? field(buf, got, 8, 32) : NULL;
    if (!got || buf[5] != 0x01 || !id || !pub || !nonce || !eph) return 0;
    memcpy(peer->pub, pub, 32);
    memcpy(peer->nonce, nonce, 16);
    memcpy(peer->eph, eph, 32);
    instance_id(peer->pub, peer->id);
    return memcmp(peer->id, id, 16) == 0;
}

/* The 144 bytes a signer signs (Protocol.md §4, "The proof (version 2)"). */
static void transcript(uint8_t t[144], const struct side *signer, const struct side *verifier) {
    memcpy(t, "tictac-proof-v2", 15);
    t[15] = 2;
    memcpy(t + 16, signer->id, 16); memcpy(t + 32, signer->nonce, 16); memcpy(t + 48, signer->eph, 32);
    memcpy(t + 80, verifier->id, 16); memcpy(t + 96, verifier->nonce, 16); memcpy(t + 112, verifier->eph, 32);
}

static void send_proof(int fd, const struct side *us, const struct side *peer) {
    uint8_t t[144], sig[64], f[12 + 67];
    transcript(t, us, peer);
    crypto_sign_detached(sig, NULL, t, sizeof t, us->secret);
    memcpy(f, "TTAC\2\6\0\0", 8);
    set_length(f, 67);
    tlv(f + 12, 1, sig, 64);
    write_full(fd, f, sizeof f);
}

static int verify_proof(int fd, uint8_t *buf, const struct side *us, const struct side *peer) {
    size_t got = read_frame(fd, buf);
    const uint8_t *sig = got ? field(buf, got, 1, 64) : NULL;
    if (!got || buf[5] != 0x06 || !sig) return 0;
    uint8_t t[144];
    transcript(t, peer, us);
    return crypto_sign_verify_detached(sig, t, sizeof t, peer->pub) == 0;
}

/* HKDF-SHA256 (RFC 5869) for one 32-byte key: extract, then the first block of expand. */
static void hkdf32(const uint8_t salt[32], const uint8_t ikm[32], const char *info, uint8_t out[32]) {
    uint8_t prk[32], one = 1;
    crypto_auth_hmacsha256_state h;
    crypto_auth_hmacsha256_init(&h, salt, 32);
    crypto_auth_hmacsha256_update(&h, ikm, 32);
    crypto_auth_hmacsha256_final(&h, prk);
    crypto_auth_hmacsha256_init(&h, prk, 32);
    crypto_auth_hmacsha256_update(&h, (const uint8_t *)info, strlen(info));
    crypto_auth_hmacsha256_update(&h, &one, 1);
    crypto_auth_hmacsha256_final(&h, out);
}

/* The key schedule: X25519, the session's SHA-256 as the salt, HKDF-SHA256 for each direction. */
static int key_schedule(const struct side *us, const struct side *peer, const struct side *dialler,
                        const struct side *acceptor, uint8_t kd[32], uint8_t ka[32]) {
    uint8_t shared[32], session[146], salt[32];
    if (crypto_scalarmult(shared, us->eph_secret, peer->eph) != 0) return 0; /* all zero: refused */
    memcpy(session, "tictac-session-v2", 17);
    session[17] = 2;
    const struct side *order[2] = {dialler, acceptor};
    for (int i = 0; i < 2; i++) {
        memcpy(session + 18 + 64 * i, order[i]->id, 16);
        memcpy(session + 34 + 64 * i, order[i]->nonce, 16);
        memcpy(session + 50 + 64 * i, order[i]->eph, 32);
    }
    crypto_hash_sha256(salt, session, sizeof session);
    hkdf32(salt, shared, "tictac-v2 dialler to acceptor", kd);
    hkdf32(salt, shared, "tictac-v2 acceptor to dialler", ka);
    return 1;
}

int handshake_server(int port, int count) {
    alarm(120); /* bounded, like the echo servers */
    int l = listen_loopback(port, SOCK_STREAM, 16);
    struct side us, peer;
    make_identity(&us);
    uint8_t buf[12 + 16384], kd[32], ka[32];
    for (int done = 0; done < count; done++) {
        int fd = accept(l, NULL, NULL);
        if (fd < 0) die("accept");
        nodelay(fd);
        fresh(&us);
        if (!read_hello(fd, buf, &peer)) { fprintf(stderr, "pingpong: a bad HELLO\n"); return 1; }
        send_hello(fd, &us);
        if (!verify_proof(fd, buf, &us, &peer)) { fprintf(stderr, "pingpong: a PROOF that does not verify\n"); return 1; }
        send_proof(fd, &us, &peer);
        if (!key_schedule(&us, &peer, &peer, &us, kd, ka)) { fprintf(stderr, "pingpong: a weak key\n"); return 1; }
        close(fd);
    }
    close(l);
    return 0;
}

int handshake_client(int port, int count) {
    struct side us, peer;
    make_identity(&us);
    uint8_t buf[12 + 16384], kd[32], ka[32];
    uint64_t *t = malloc(sizeof(uint64_t) * (size_t)count), sum = 0;
    if (!t || count < 1) die("handshakes");
    for (int i = 0; i < count; i++) {
        uint64_t t0 = now_ns();
        int fd = dial(port);
        fresh(&us);
        send_hello(fd, &us);
        if (!read_hello(fd, buf, &peer)) { fprintf(stderr, "pingpong: a bad HELLO\n"); return 1; }
        send_proof(fd, &us, &peer);
        if (!verify_proof(fd, buf, &us, &peer)) { fprintf(stderr, "pingpong: a PROOF that does not verify\n"); return 1; }
        if (!key_schedule(&us, &peer, &us, &peer, kd, ka)) { fprintf(stderr, "pingpong: a weak key\n"); return 1; }
        t[i] = now_ns() - t0;
        sum += t[i];
        close(fd);
    }
    qsort(t, (size_t)count, sizeof t[0], cmp_u64);
    printf("handshakes=%d handshakes_per_s=%.2f hs_p50_us=%.2f\n", count, 1e9 / ((double)sum / count), t[count / 2] / 1e3);
    free(t);
    return 0;
}
