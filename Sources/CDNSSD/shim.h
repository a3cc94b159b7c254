// <dns_sd.h> from Avahi's compatibility library (Debian: libavahi-compat-libdnssd-dev, whose
// pkg-config file avahi-compat-libdns_sd names this include directory and -ldns_sd).
#pragma once
#include <stdlib.h>
#include <avahi-compat-libdns_sd/dns_sd.h>
#include <avahi-common/malloc.h>

// Avahi 0.8's compatibility library leaves the callback pointers of a new DNSServiceRef
// uninitialised, and when avahi-daemon goes away it calls the first non-NULL one: a resolve or
// record query then jumps to garbage. (Fixed upstream after 0.8 by "libdns_sd: Use allocator
// with memory set to zero".) Installing an allocator that zeroes what it hands out, before the
// first dns_sd call, applies the same fix from outside.
static void *tictac_avahi_zeroed_malloc(size_t size) { return calloc(1, size); }

static inline void tictac_avahi_use_zeroing_allocator(void) {
    static const AvahiAllocator allocator = { tictac_avahi_zeroed_malloc, free, realloc, calloc };
    avahi_set_allocator(&allocator);
}
