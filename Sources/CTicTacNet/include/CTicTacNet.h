// Linux headers and small helpers the Glibc module map does not export to Swift.
#pragma once
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <malloc.h>

/// Blocks the given signals for the calling thread and returns a nonblocking, close-on-exec
/// signalfd that reports them, or -1 with errno set.
int tictac_signalfd(const int *signals, int count);

/// Ignores SIGPIPE for the process: a write to a closed socket returns EPIPE instead of killing us.
void tictac_ignore_sigpipe(void);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int tictac_accept(int fd, struct sockaddr *addr, socklen_t *len);
