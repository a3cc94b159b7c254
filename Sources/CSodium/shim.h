// libsodium (Debian: libsodium-dev): ChaCha20-Poly1305 (RFC 8439, "IETF") sealing and opening
// in place, for the authenticated stream (Protocol.md §4).
#pragma once
#include <sodium.h>
