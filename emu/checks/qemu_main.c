/* The batch driver (emu/machines/driver.c) as a Linux AArch64 program for qemu-aarch64 user mode: the
 * second place an armv8a drop runs (emu/checks/qemu.py). argv: number of cases, result bytes; the
 * encoded cases on stdin, the results on stdout. Host-style: it uses the C library, the drop
 * does not. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint32_t sg_run_batch(const uint8_t *cases, uint32_t ncases, uint8_t *results);

int main(int argc, char **argv)
{
    size_t cap = 1u << 16, len = 0, n, rsize;
    uint8_t *in, *out;
    if (argc != 3) return 2;
    rsize = (size_t)strtoul(argv[2], NULL, 10);
    in = malloc(cap);
    out = calloc(rsize + 1, 1);
    if (in == NULL || out == NULL) return 3;
    while ((n = fread(in + len, 1, cap - len, stdin)) > 0) {
        len += n;
        if (len == cap) {
            cap *= 2;
            in = realloc(in, cap);
            if (in == NULL) return 3;
        }
    }
    sg_run_batch(in, (uint32_t)strtoul(argv[1], NULL, 10), out);
    fwrite(out, 1, rsize, stdout);
    return 0;
}
