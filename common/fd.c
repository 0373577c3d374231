/*
 * fd.c - what the monitor and the workers ask of a descriptor they were
 * given.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/epoll.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fd.h"
#include "log.h"

int
fd_pollable(int fd, uint32_t events)
{
	struct epoll_event ev;
	int ep, ok;

	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1)
		fatal("epoll_create1: %s", strerror(errno));
	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ok = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0;
	close(ep);
	return ok;
}
