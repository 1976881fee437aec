/*
 * bench.c: probes per second through the C ABI.
 *
 *   bench DIR POSITIONS
 *
 * reads the positions (one per line; `cargo run --release -p moulin-c
 * --example bench -- DIR POSITIONS` writes 100,000 random ones), probes
 * them all once to warm the cache, then times a second pass.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "moulin.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR POSITIONS\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[2], "r");
    if (f == NULL) {
        perror(argv[2]);
        return 2;
    }
    size_t count = 0, capacity = 1024;
    char **lines = malloc(capacity * sizeof *lines);
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (count == capacity)
            lines = realloc(lines, (capacity *= 2) * sizeof *lines);
        lines[count++] = strdup(line);
    }
    fclose(f);
    moulin_tablebase *tb = moulin_open(argv[1]);
    if (tb == NULL) {
        fprintf(stderr, "bench: %s\n", moulin_last_error());
        return 2;
    }
    long checksum = 0;
    moulin_result r;
    for (int pass = 0; pass < 2; pass++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (size_t i = 0; i < count; i++) {
            if (moulin_probe(tb, lines[i], &r) != MOULIN_OK) {
                fprintf(stderr, "bench: %s\n", moulin_last_error());
                return 1;
            }
            checksum += r.outcome + r.distance;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        if (pass == 1)
            printf("c: %zu positions, %.0f probes/s (checksum %ld)\n", count, (double)count / seconds,
                   checksum);
    }
    moulin_close(tb);
    return 0;
}
