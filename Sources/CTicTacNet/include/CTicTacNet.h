// Linux headers the Glibc module map does not export to Swift.
#pragma once
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <signal.h>
