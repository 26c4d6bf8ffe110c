/* A main() for a fuzz target where libFuzzer is not (a static AArch64 program under qemu-aarch64):
 * runs LLVMFuzzerTestOneInput once on every file named, or in a folder named, on the command line,
 * and prints "replayed <n>". A divergence aborts, as under libFuzzer. */
#define _DEFAULT_SOURCE                 /* DT_REG under -std=c99 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    static uint8_t buf[1 << 16];
    FILE *f = fopen(path, "rb");
    size_t n;
    if (f == NULL) return 0;
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    return 1;
}

int main(int argc, char **argv)
{
    char path[4096];
    struct dirent *e;
    DIR *d;
    long count = 0;
    int i;
    for (i = 1; i < argc; i++) {
        if ((d = opendir(argv[i])) == NULL) {
            count += replay_file(argv[i]);
            continue;
        }
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            count += replay_file(path);
        }
        closedir(d);
    }
    printf("replayed %ld\n", count);
    return count ? 0 : 1;
}
