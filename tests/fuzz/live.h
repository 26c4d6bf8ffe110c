/* The fuzz targets' side of the bounded live mode (tests/fuzz/live.py): after the target's own
 * checks of the portable drop, each input goes, as it is generated, to the worker that runs it on
 * the emulated Cortex-M drops (Unicorn) and answers whether they agreed with the oracle. The live
 * mode is on when the runner passes the pipe's two file descriptors in SG_LIVE_FDS ("read,write");
 * without it (make fuzz, the CI replays) sg_live_check returns at once, so the same program serves
 * both. A disagreement aborts with the worker's message on stderr, and libFuzzer keeps the input
 * as a crash file.
 * Request: u32 size, u32 n, n u32 of the case as the target decoded it (the worker checks its own
 * decoding against them), the input's bytes. Reply: u32 status (0: agreed), u32 length, message. */
#ifndef SG_LIVE_H
#define SG_LIVE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int sg_live_rd = -1, sg_live_wr = -1;

static void sg_live_io(int write_, int fd, void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t k = write_ ? write(fd, p, n) : read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;   /* libFuzzer's timers (SIGALRM) interrupt a wait */
        if (k <= 0) {
            fprintf(stderr, "live mode: the worker's pipe closed\n");
            abort();
        }
        p += k; n -= (size_t)k;
    }
}

static void sg_live_check(const uint8_t *data, size_t size, const uint32_t *decoded, uint32_t n)
{
    uint32_t head[2], reply[2];
    char msg[2048];
    static int on = -1;               /* not yet known, off, on */
    if (on < 0) {
        const char *fds = getenv("SG_LIVE_FDS");
        on = fds != NULL && sscanf(fds, "%d,%d", &sg_live_rd, &sg_live_wr) == 2;
    }
    if (!on) return;
    head[0] = (uint32_t)size;
    head[1] = n;
    sg_live_io(1, sg_live_wr, head, sizeof head);
    if (n) sg_live_io(1, sg_live_wr, (void *)decoded, 4u * n);
    if (size) sg_live_io(1, sg_live_wr, (void *)data, size);
    sg_live_io(0, sg_live_rd, reply, sizeof reply);
    if (reply[1] >= sizeof msg) reply[1] = sizeof msg - 1u;
    sg_live_io(0, sg_live_rd, msg, reply[1]);
    msg[reply[1]] = 0;
    if (reply[0] != 0) {
        fprintf(stderr, "DIVERGENCE (emulated drop, live): %s\n", msg);
        abort();
    }
}

#endif
