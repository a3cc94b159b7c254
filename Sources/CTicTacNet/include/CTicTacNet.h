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

#include <sys/types.h>

/// Starts `/bin/sh -c script` with posix_spawn: its standard input, output and error are
/// `in`, `out` and `err`; every other descriptor is closed in the child; it leads a process
/// group of its own (so the whole group can be killed); its signal mask is empty and SIGPIPE,
/// SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD are back to their defaults (the daemon blocks
/// some for its signalfd and ignores SIGPIPE, and a child would inherit both).
/// Returns 0 and the pid in `pid`, or an errno value.
int tictac_spawn_shell(const char *script, int in, int out, int err, pid_t *pid);

/// pidfd_open(2): a descriptor that becomes readable when `pid` exits, or -1 with errno set.
int tictac_pidfd_open(pid_t pid);

/// pipe2 with O_CLOEXEC: 0, or -1 with errno set.
int tictac_pipe_cloexec(int fds[2]);

/// The uid of the process at the other end of a connected Unix socket (SO_PEERCRED): 0 and the
/// uid in `uid`, or -1 with errno set.
int tictac_peer_uid(int fd, uid_t *uid);
