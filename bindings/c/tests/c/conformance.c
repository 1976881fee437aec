/*
 * conformance.c: the C ABI under test (run by tests/tests/c_programs.rs at the
 * root of the repository).
 *
 *   conformance json DIR < positions    one JSON line per position, in the
 *                                       shape of `moulin probe --json`
 *                                       (errors add "code")
 *   conformance wdl DIR < positions     one JSON line per position: its
 *                                       outcome from the WDL tables
 *                                       (moulin_open_wdl) and by
 *                                       moulin_probe_wdl on the distance
 *                                       tables (moulin_open), each
 *                                       {"outcome":...} or {"error":...,
 *                                       "code":...}
 *   conformance bad DIR                 hostile calls: NULL pointers,
 *                                       invalid UTF-8, garbage positions,
 *                                       small buffers, threads, distances
 *                                       asked of WDL tables; prints
 *                                       "N passed, N failed"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moulin.h"

static const char *word(int outcome) {
    switch (outcome) {
    case MOULIN_WIN: return "win";
    case MOULIN_DRAW: return "draw";
    case MOULIN_LOSS: return "loss";
    default: return "?";
    }
}

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void json_distance(int distance) {
    if (distance < 0)
        printf("null");
    else
        printf("%d", distance);
}

static void json_error(const char *position) {
    printf("{\"position\":");
    json_string(position);
    printf(",\"error\":");
    json_string(moulin_last_error());
    printf(",\"code\":%d}\n", moulin_last_error_code());
}

static void json_line(const moulin_tablebase *tb, const char *position) {
    moulin_result r;
    char best[MOULIN_MOVES_TEXT_MAX];
    moulin_move_result moves[MOULIN_MAX_MOVES];
    size_t count = 0;
    if (moulin_probe(tb, position, &r) != MOULIN_OK
        || moulin_best_moves(tb, position, best, sizeof best) != MOULIN_OK
        || moulin_moves(tb, position, moves, MOULIN_MAX_MOVES, &count) != MOULIN_OK) {
        json_error(position);
        return;
    }
    printf("{\"position\":");
    json_string(position);
    printf(",\"outcome\":\"%s\",\"distance\":", word(r.outcome));
    json_distance(r.distance);
    printf(",\"best_moves\":[");
    int first = 1;
    for (char *m = strtok(best, " "); m != NULL; m = strtok(NULL, " ")) {
        printf(first ? "\"%s\"" : ",\"%s\"", m);
        first = 0;
    }
    printf("],\"moves\":[");
    for (size_t i = 0; i < count; i++) {
        printf("%s{\"move\":\"%s\",\"outcome\":\"%s\",\"distance\":", i ? "," : "",
               moves[i].move, word(moves[i].outcome));
        json_distance(moves[i].distance);
        printf("}");
    }
    printf("]}\n");
}

/* {"outcome":"win"} or {"error":"...","code":-4}: moulin_probe_wdl on `tb`. */
static void json_wdl(const moulin_tablebase *tb, const char *position) {
    int outcome = 99;
    if (moulin_probe_wdl(tb, position, &outcome) != MOULIN_OK) {
        printf("{\"error\":");
        json_string(moulin_last_error());
        printf(",\"code\":%d}", moulin_last_error_code());
    } else {
        printf("{\"outcome\":\"%s\"}", word(outcome));
    }
}

static void wdl_line(const moulin_tablebase *wdl, const moulin_tablebase *tb,
                     const char *position) {
    printf("{\"position\":");
    json_string(position);
    printf(",\"wdl\":");
    json_wdl(wdl, position);
    printf(",\"distance_tables\":");
    json_wdl(tb, position);
    printf("}\n");
}

static int passed, failed;

static void check(int ok, const char *what) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAILED: %s (last error %d: %s)\n", what, moulin_last_error_code(),
               moulin_last_error());
    }
}

/* The call returned `code` and the message mentions `text`. */
static void expect(int got, int code, const char *text, const char *what) {
    int ok = got == code && moulin_last_error_code() == code
             && strstr(moulin_last_error(), text) != NULL;
    if (!ok)
        printf("  %s: returned %d, expected %d with \"%s\"\n", what, got, code, text);
    check(ok, what);
}

#define THREADS 4
#define ROUNDS 2000
/* Positions no call may accept, with a word of the error each must give. */
static const char *GARBAGE[][2] = {
    {"", "malformed position"},
    {"hello", "malformed position"},
    {"W:a1,z9 B: w 9 9", "unknown point `z9`"},
    {"W:a1,a1 B:b2,d2,f2 w", "listed twice"},
    {"W: B: b 9 9", "impossible hand counts"},
    {"W:a1 B:d1 x", "bad side"},
    {"W:a1,d1 B:b2,d2,f2 b", "the game ended before"},
    {"W:a1 B:d1 w 10 10", "bad hand count"},
    {"\t\n W:a1,d1,g1 B:b2,d2,f2 w w", "malformed position"},
};
#define NGARBAGE (sizeof GARBAGE / sizeof GARBAGE[0])

static const char *THREAD_POSITIONS[] = {
    "W:a1,d1,g1 B:b2,d2,f2 w",
    "W:a4,c4,b2,d2,e5 B:b6,d6,f6,e4,g4 w",
    "W:a1,d1,g7 B:b2,d2,f2,d6 b",
    "W:a1,d1 B:a7,d2,g4 w",
};
#define NPOS (sizeof THREAD_POSITIONS / sizeof THREAD_POSITIONS[0])
static moulin_result expected[NPOS];

struct worker {
    const moulin_tablebase *tb;
    int id;
    int wrong;
    int fresh_code;
};

static void *work(void *arg) {
    struct worker *w = arg;
    /* The last error belongs to each thread: nothing failed here yet. */
    w->fresh_code = moulin_last_error_code();
    for (int i = 0; i < ROUNDS; i++) {
        size_t k = (size_t)(i + w->id) % NPOS;
        moulin_result r;
        if (moulin_probe(w->tb, THREAD_POSITIONS[k], &r) != MOULIN_OK
            || r.outcome != expected[k].outcome || r.distance != expected[k].distance)
            w->wrong++;
    }
    return NULL;
}

static int wdl_expected[NPOS];

struct wdl_worker {
    const moulin_tablebase *tb;
    int id;
    int wrong;
};

static void *wdl_work(void *arg) {
    struct wdl_worker *w = arg;
    for (int i = 0; i < ROUNDS; i++) {
        size_t k = (size_t)(i + w->id) % NPOS;
        int outcome = 99;
        if (moulin_probe_wdl(w->tb, THREAD_POSITIONS[k], &outcome) != MOULIN_OK
            || outcome != wdl_expected[k])
            w->wrong++;
    }
    return NULL;
}

/* Hostile calls on the WDL tables of `dir`, beside the distance tables `tb`. */
static void hostile_wdl(const char *dir, const moulin_tablebase *tb) {
    moulin_result r = {77, 77};
    char buf[MOULIN_MOVES_TEXT_MAX];
    moulin_move_result moves[MOULIN_MAX_MOVES];
    size_t count = 12345;
    int outcome = 99;
    const char *pos = "W:a1,d1,g1 B:b2,d2,f2 w";

    check(moulin_open_wdl(NULL) == NULL && moulin_last_error_code() == MOULIN_ERR_NULL,
          "open_wdl(NULL)");
    check(moulin_open_wdl("\xff\xfe") == NULL && moulin_last_error_code() == MOULIN_ERR_UTF8,
          "open_wdl(invalid UTF-8)");
    check(moulin_open_wdl("/nonexistent/moulin/tables") == NULL
              && moulin_last_error_code() == MOULIN_ERR_IO
              && strstr(moulin_last_error(), "cannot open the WDL tables in") != NULL
              && strstr(moulin_last_error(), "/nonexistent/moulin/tables") != NULL,
          "open_wdl(no such directory)");
    check(moulin_open_play(NULL) == NULL && moulin_last_error_code() == MOULIN_ERR_NULL,
          "open_play(NULL)");
    check(moulin_open_play("\xff\xfe") == NULL && moulin_last_error_code() == MOULIN_ERR_UTF8,
          "open_play(invalid UTF-8)");
    check(moulin_open_play(dir) == NULL && moulin_last_error_code() != MOULIN_OK
              && strstr(moulin_last_error(), "cannot open the play set in") != NULL,
          "open_play(tables without a play set)");
    check(moulin_is_wdl(NULL) == 0, "is_wdl(NULL) is 0");
    check(moulin_is_wdl(tb) == 0, "distance tables are not WDL tables");

    moulin_tablebase *wdl = moulin_open_wdl(dir);
    check(wdl != NULL, "open_wdl(tables)");
    if (wdl == NULL)
        return;
    check(moulin_is_wdl(wdl) == 1, "is_wdl(WDL tables) is 1");
    check(moulin_no_capture_limit(wdl) == 0, "WDL tables carry no no-capture rule");

    /* The same outcome as the distance tables' moulin_probe. */
    check(moulin_probe(tb, pos, &r) == MOULIN_OK, "probe(distance tables)");
    check(moulin_probe_wdl(wdl, pos, &outcome) == MOULIN_OK && outcome == r.outcome
              && outcome == MOULIN_WIN,
          "probe_wdl(WDL tables) is the distance tables' outcome");
    outcome = 99;
    check(moulin_probe_wdl(tb, pos, &outcome) == MOULIN_OK && outcome == MOULIN_WIN,
          "probe_wdl(distance tables)");
    outcome = 99;
    check(moulin_probe_wdl(wdl, "W:a1,d1 B:a7,d2,g4 w", &outcome) == MOULIN_OK
              && outcome == MOULIN_LOSS,
          "probe_wdl: a finished game is a loss");

    /* Every question about distances fails, and writes nothing. */
    r = (moulin_result){77, 77};
    expect(moulin_probe(wdl, pos, &r), MOULIN_ERR_WDL_ONLY, "moulin_probe_wdl",
           "probe(WDL tables)");
    check(r.outcome == 77 && r.distance == 77, "probe(WDL tables) writes nothing");
    expect(moulin_probe(wdl, "W:a1,d1 B:a7,d2,g4 w", &r), MOULIN_ERR_WDL_ONLY, "WDL tables",
           "probe(WDL tables, finished game)");
    expect(moulin_probe_counter(wdl, pos, 0, &r), MOULIN_ERR_WDL_ONLY, "outcomes only",
           "probe_counter(WDL tables)");
    expect(moulin_probe_counter(wdl, pos, -1, &r), MOULIN_ERR_WDL_ONLY, "outcomes only",
           "probe_counter(WDL tables, bad counter)");
    memset(buf, 'x', sizeof buf);
    expect(moulin_best_moves(wdl, pos, buf, sizeof buf), MOULIN_ERR_WDL_ONLY, "moulin_open",
           "best_moves(WDL tables)");
    check(buf[0] == 'x', "best_moves(WDL tables) writes nothing");
    expect(moulin_moves(wdl, pos, moves, MOULIN_MAX_MOVES, &count), MOULIN_ERR_WDL_ONLY,
           "moulin_probe_wdl", "moves(WDL tables)");
    check(count == 12345, "moves(WDL tables) writes no count");
    expect(moulin_moves_counter(wdl, pos, 0, moves, MOULIN_MAX_MOVES, &count),
           MOULIN_ERR_WDL_ONLY, "moulin_probe_wdl", "moves_counter(WDL tables)");

    /* Bad arguments. */
    outcome = 99;
    expect(moulin_probe_wdl(NULL, pos, &outcome), MOULIN_ERR_NULL, "tablebase is NULL",
           "probe_wdl(NULL tb)");
    expect(moulin_probe_wdl(wdl, NULL, &outcome), MOULIN_ERR_NULL, "position is NULL",
           "probe_wdl(NULL pos)");
    expect(moulin_probe_wdl(wdl, pos, NULL), MOULIN_ERR_NULL, "outcome pointer",
           "probe_wdl(NULL out)");
    expect(moulin_probe_wdl(wdl, "W:a1,d1,g1 B:b2,d2,\xc3\x28 w", &outcome), MOULIN_ERR_UTF8,
           "not valid UTF-8", "probe_wdl(invalid UTF-8)");
    for (size_t i = 0; i < NGARBAGE; i++) {
        char what[128];
        snprintf(what, sizeof what, "probe_wdl(\"%s\")", GARBAGE[i][0]);
        expect(moulin_probe_wdl(wdl, GARBAGE[i][0], &outcome), MOULIN_ERR_POSITION,
               GARBAGE[i][1], what);
        expect(moulin_probe(wdl, GARBAGE[i][0], &r), MOULIN_ERR_POSITION, GARBAGE[i][1], what);
    }
    check(outcome == 99, "a failed probe_wdl writes nothing");
    expect(moulin_probe_wdl(wdl, "W:a1,d1,g1,b2,d2,f2 B:a7,d7,g7,b6,d6,f6 w", &outcome),
           MOULIN_ERR_MISSING_TABLE, "no table for sector 6v6", "probe_wdl(missing table)");
    expect(moulin_probe_wdl(wdl, "W: B: w 9 9", &outcome), MOULIN_ERR_MISSING_TABLE,
           "no table", "probe_wdl(start, no placement tables)");

    /* Threads share one WDL tablebase. */
    for (size_t k = 0; k < NPOS; k++)
        check(moulin_probe_wdl(tb, THREAD_POSITIONS[k], &wdl_expected[k]) == MOULIN_OK,
              "probe_wdl before threads");
    pthread_t threads[THREADS];
    struct wdl_worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (struct wdl_worker){wdl, i, 0};
        pthread_create(&threads[i], NULL, wdl_work, &workers[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        check(workers[i].wrong == 0, "threads probe_wdl the distance tables' outcomes");
    }
    moulin_close(wdl);
}

static int hostile(const char *dir) {
    moulin_result r;
    char buf[MOULIN_MOVES_TEXT_MAX];
    moulin_move_result moves[MOULIN_MAX_MOVES];
    size_t count = 0;
    const char *pos = "W:a1,d1,g1 B:b2,d2,f2 w";

    check(moulin_version() != NULL && strlen(moulin_version()) > 0, "version");
    check(moulin_last_error_code() == MOULIN_OK && strcmp(moulin_last_error(), "") == 0,
          "no error before the first failure");
    check(moulin_open(NULL) == NULL && moulin_last_error_code() == MOULIN_ERR_NULL,
          "open(NULL)");
    check(moulin_open("\xff\xfe") == NULL && moulin_last_error_code() == MOULIN_ERR_UTF8,
          "open(invalid UTF-8)");
    check(moulin_open("/nonexistent/moulin/tables") == NULL
              && moulin_last_error_code() == MOULIN_ERR_IO
              && strstr(moulin_last_error(), "/nonexistent/moulin/tables") != NULL,
          "open(no such directory)");
    moulin_close(NULL);

    moulin_tablebase *tb = moulin_open(dir);
    check(tb != NULL, "open(tables)");
    if (tb == NULL)
        return 1;

    expect(moulin_probe(NULL, pos, &r), MOULIN_ERR_NULL, "tablebase is NULL", "probe(NULL tb)");
    expect(moulin_probe(tb, NULL, &r), MOULIN_ERR_NULL, "position is NULL", "probe(NULL pos)");
    expect(moulin_probe(tb, pos, NULL), MOULIN_ERR_NULL, "result pointer", "probe(NULL out)");
    expect(moulin_probe(tb, "W:a1,d1,g1 B:b2,d2,\xc3\x28 w", &r), MOULIN_ERR_UTF8,
           "not valid UTF-8", "probe(invalid UTF-8)");
    expect(moulin_best_moves(tb, "\x80", buf, sizeof buf), MOULIN_ERR_UTF8, "UTF-8",
           "best_moves(invalid UTF-8)");
    expect(moulin_moves(tb, "\xff", moves, MOULIN_MAX_MOVES, &count), MOULIN_ERR_UTF8, "UTF-8",
           "moves(invalid UTF-8)");

    for (size_t i = 0; i < NGARBAGE; i++) {
        char what[128];
        snprintf(what, sizeof what, "probe(\"%s\")", GARBAGE[i][0]);
        expect(moulin_probe(tb, GARBAGE[i][0], &r), MOULIN_ERR_POSITION, GARBAGE[i][1], what);
        expect(moulin_best_moves(tb, GARBAGE[i][0], buf, sizeof buf), MOULIN_ERR_POSITION,
               GARBAGE[i][1], what);
        expect(moulin_moves(tb, GARBAGE[i][0], moves, MOULIN_MAX_MOVES, &count),
               MOULIN_ERR_POSITION, GARBAGE[i][1], what);
    }
    /* Six stones a side: no table in a directory solved up to five. */
    expect(moulin_probe(tb, "W:a1,d1,g1,b2,d2,f2 B:a7,d7,g7,b6,d6,f6 w", &r),
           MOULIN_ERR_MISSING_TABLE, "no table for sector 6v6", "probe(missing table)");
    expect(moulin_probe(tb, "W: B: w 9 9", &r), MOULIN_ERR_MISSING_TABLE, "no table",
           "probe(start, no placement tables)");

    /* Buffers: too small says how much is needed; exactly enough works. */
    expect(moulin_best_moves(tb, pos, NULL, 100), MOULIN_ERR_NULL, "buffer is NULL",
           "best_moves(NULL buf)");
    check(moulin_best_moves(tb, pos, buf, sizeof buf) == MOULIN_OK, "best_moves");
    size_t needed = strlen(buf) + 1;
    char needed_text[64];
    snprintf(needed_text, sizeof needed_text, "%zu bytes are needed", needed);
    memset(buf, 'x', sizeof buf);
    expect(moulin_best_moves(tb, pos, buf, needed - 1), MOULIN_ERR_BUFFER_TOO_SMALL,
           needed_text, "best_moves(short buffer)");
    check(buf[0] == 'x', "a short buffer is left alone");
    check(moulin_best_moves(tb, pos, buf, needed) == MOULIN_OK && strlen(buf) == needed - 1,
          "best_moves(exact buffer)");
    expect(moulin_best_moves(tb, pos, buf, 0), MOULIN_ERR_BUFFER_TOO_SMALL, "bytes are needed",
           "best_moves(len 0)");

    expect(moulin_moves(tb, pos, moves, MOULIN_MAX_MOVES, NULL), MOULIN_ERR_NULL,
           "count pointer", "moves(NULL count)");
    expect(moulin_moves(tb, pos, NULL, 5, &count), MOULIN_ERR_NULL, "moves array",
           "moves(NULL array)");
    count = 0;
    expect(moulin_moves(tb, pos, NULL, 0, &count), MOULIN_ERR_BUFFER_TOO_SMALL, "legal moves",
           "moves(capacity 0)");
    check(count == 54, "moves(capacity 0) gives the count (3 flying stones to 18 points)");
    size_t all = count;
    expect(moulin_moves(tb, pos, moves, all - 1, &count), MOULIN_ERR_BUFFER_TOO_SMALL,
           "legal moves", "moves(one short)");
    check(moulin_moves(tb, pos, moves, all, &count) == MOULIN_OK && count == all,
          "moves(exact)");
    check(moulin_moves(tb, "W:a1,d1 B:a7,d2,g4 w", moves, 0, &count) == MOULIN_OK && count == 0,
          "moves of a finished game: none");
    check(moulin_best_moves(tb, "W:a1,d1 B:a7,d2,g4 w", buf, 1) == MOULIN_OK && buf[0] == '\0',
          "best moves of a finished game: empty");
    check(moulin_probe(tb, "W:a1,d1 B:a7,d2,g4 w", &r) == MOULIN_OK
              && r.outcome == MOULIN_LOSS && r.distance == 0,
          "a finished game is a loss in 0");

    /* Threads share one tablebase; each has its own last error. */
    for (size_t k = 0; k < NPOS; k++)
        check(moulin_probe(tb, THREAD_POSITIONS[k], &expected[k]) == MOULIN_OK,
              "probe before threads");
    moulin_probe(tb, "garbage", &r); /* leaves an error in this thread */
    pthread_t threads[THREADS];
    struct worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (struct worker){tb, i, 0, -1};
        pthread_create(&threads[i], NULL, work, &workers[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        check(workers[i].wrong == 0, "threads probe the same answers");
        check(workers[i].fresh_code == MOULIN_OK, "a new thread has no last error");
    }
    check(moulin_last_error_code() == MOULIN_ERR_POSITION, "this thread keeps its last error");

    hostile_wdl(dir, tb);
    moulin_close(tb);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "bad") == 0)
        return hostile(argv[2]);
    int wdl_mode = argc == 3 && strcmp(argv[1], "wdl") == 0;
    if (argc != 3 || (!wdl_mode && strcmp(argv[1], "json") != 0)) {
        fprintf(stderr, "usage: %s json|wdl DIR < positions | %s bad DIR\n", argv[0], argv[0]);
        return 2;
    }
    moulin_tablebase *tb = moulin_open(argv[2]);
    moulin_tablebase *wdl = wdl_mode && tb != NULL ? moulin_open_wdl(argv[2]) : NULL;
    if (tb == NULL || (wdl_mode && wdl == NULL)) {
        printf("{\"open_error\":");
        json_string(moulin_last_error());
        printf(",\"code\":%d}\n", moulin_last_error_code());
        moulin_close(tb);
        return 0;
    }
    if (wdl_mode && moulin_is_wdl(wdl) != 1) {
        fprintf(stderr, "moulin_open_wdl gave distance tables\n");
        return 1;
    }
    char line[1024];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0')
            continue;
        if (wdl_mode)
            wdl_line(wdl, tb, line);
        else
            json_line(tb, line);
    }
    moulin_close(wdl);
    moulin_close(tb);
    return 0;
}
