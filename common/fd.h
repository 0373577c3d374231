/*
 * fd.h - what the monitor and the workers ask of a descriptor they were
 * given (the client's stdin and stdout, an upstream's pipes).
 */
#ifndef BNC_FD_H
#define BNC_FD_H

#include <stdint.h>

/*
 * Can fd be waited on with epoll for events (EPOLLIN, EPOLLOUT)?  epoll
 * refuses regular files and /dev/null, which are then read or written
 * without waiting.  Fatal if no epoll instance can be made.
 */
int	fd_pollable(int fd, uint32_t events);

#endif
