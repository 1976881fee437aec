/*
 * probe.c: ask the moulin tables about positions from C.
 *
 *   probe DIR [POSITION...]     (no position: one per line from standard input)
 *
 * prints each position's outcome for the player to move, its distance in
 * turns, the best moves and every move's outcome, like `moulin probe`.
 * Exit code 0 if every position was answered, 1 if some were not, 2 if
 * the tables cannot be opened.
 *
 * Build (from the repository root, after `cargo build --release -p moulin-c`):
 *   cc -O2 -Ibindings/c/include bindings/c/examples/probe.c \
 *      target/release/libmoulin_c.a -lpthread -ldl -lm -o probe
 */
#include <stdio.h>
#include <string.h>

#include "moulin.h"

static const char *outcome_word(int outcome) {
    switch (outcome) {
    case MOULIN_WIN: return "win";
    case MOULIN_DRAW: return "draw";
    case MOULIN_LOSS: return "loss";
    case MOULIN_CURSED_WIN: return "cursed win";
    case MOULIN_BLESSED_LOSS: return "blessed loss";
    default: return "?";
    }
}

/* Prints what the tables say about one position; 0 on success. */
static int report(const moulin_tablebase *tb, const char *position) {
    moulin_result result;
    char best[MOULIN_MOVES_TEXT_MAX];
    moulin_move_result moves[MOULIN_MAX_MOVES];
    size_t count = 0;
    if (moulin_probe(tb, position, &result) != MOULIN_OK
        || moulin_best_moves(tb, position, best, sizeof best) != MOULIN_OK
        || moulin_moves(tb, position, moves, MOULIN_MAX_MOVES, &count) != MOULIN_OK) {
        fprintf(stderr, "probe: %s: %s (code %d)\n", position, moulin_last_error(),
                moulin_last_error_code());
        return 1;
    }
    printf("%s\n  outcome: %s", position, outcome_word(result.outcome));
    if (result.distance >= 0)
        printf(" in %d", result.distance);
    printf("\n");
    if (count == 0)
        return 0;
    printf("  best moves: %s\n", best);
    for (size_t i = 0; i < count; i++) {
        printf("    %-10s %s", moves[i].move, outcome_word(moves[i].outcome));
        if (moves[i].distance >= 0)
            printf(" %d", moves[i].distance);
        printf("\n");
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [POSITION...]\n", argv[0]);
        return 2;
    }
    moulin_tablebase *tb = moulin_open(argv[1]);
    if (tb == NULL) {
        fprintf(stderr, "probe: %s\n", moulin_last_error());
        return 2;
    }
    int failed = 0;
    if (argc > 2) {
        for (int i = 2; i < argc; i++)
            failed |= report(tb, argv[i]);
    } else {
        char line[1024];
        while (fgets(line, sizeof line, stdin) != NULL) {
            line[strcspn(line, "\r\n")] = '\0';
            if (line[0] != '\0')
                failed |= report(tb, line);
        }
    }
    moulin_close(tb);
    return failed;
}
