/* count.h — what the student's code executes, counted by the judge
 * (count.c): for an exercise about the instructions a loop runs (06's
 * vectorised sum of squares), a test asks the judge to single-step the
 * worker through the next call and count the packed and the scalar
 * floating-point arithmetic executed in the student's own code.
 *
 * The judge is the worker's parent and traces it with ptrace; the worker
 * answers as always.  Which instruction is which comes from the map the
 * driver wrote from the linked worker before any of the student's code ran
 * (insn-map.sh: one line per arithmetic instruction of the student's
 * object, "ADDRESS P" packed or "ADDRESS S" scalar), named by
 * NL_INSN_MAP.  Nothing the worker says or does enters the count but the
 * addresses the processor executed.
 *
 * A suite declares the entry point weak, so that where no judge is linked
 * (make test) it is NULL and the test says it is the grader's. */
#ifndef NL_JUDGE_COUNT_H
#define NL_JUDGE_COUNT_H

typedef struct {
    unsigned long long packed; /* packed (vector) FP arithmetic executed */
    unsigned long long scalar; /* scalar FP arithmetic executed */
    unsigned long long steps;  /* instructions single-stepped in all */
} nl_insn_mix;

/* Count the next graded call into *mix (zeroed first); 0, or -1 with the
 * reason in why when the grader gave no map (the exercise asks for none). */
int nl_judge_count_next(nl_insn_mix *mix, char *why, size_t n);

/* For proxy.c: whether a count is armed, and the call made under it: the
 * request written while the worker is traced, until its answer can be
 * read.  0, or -1 with the reason in why. */
int nl_count_armed(void);
int nl_count_call(int worker, int req_fd, const void *req, size_t len, int rep_fd,
                  long long deadline_ms, char *why, size_t n);

#endif
