#define _GNU_SOURCE
#include "CTicTacNet.h"
#include <stddef.h>

int tictac_signalfd(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

void tictac_ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
}

int tictac_accept(int fd, struct sockaddr *addr, socklen_t *len) {
    return accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

#include <spawn.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>

extern char **environ;

int tictac_spawn_shell(const char *script, int in, int out, int err, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attr);
    if (rc != 0) { posix_spawn_file_actions_destroy(&actions); return rc; }
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, in, 0);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, out, 1);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, err, 2);
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    int reset[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD };
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++) sigaddset(&defaults, reset[i]);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr, &defaults);
    if (rc == 0) rc = posix_spawnattr_setpgroup(&attr, 0);
    if (rc == 0) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    if (rc == 0) {
        char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
        rc = posix_spawn(pid, "/bin/sh", &actions, &attr, argv, environ);
    }
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

int tictac_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int tictac_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int tictac_peer_uid(int fd, uid_t *uid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *uid = cred.uid;
    return 0;
}
