// <dns_sd.h> from Avahi's compatibility library (Debian: libavahi-compat-libdnssd-dev, whose
// pkg-config file avahi-compat-libdns_sd names this include directory and -ldns_sd).
#pragma once
#include <avahi-compat-libdns_sd/dns_sd.h>
