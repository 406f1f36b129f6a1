/* calls.h — how a graded function is described, once, for both sides of
 * the trust boundary (wire.h).
 *
 * A description is one file, calls/BASE.def for code/.../BASE.c (the
 * fixture's own in tests/grader/fixture/calls/), holding for each function
 * of the exercise that the suites call:
 *
 *   #define NL_ARGS_nl_rmsnorm_fused(X) \
 *       X(IN, float, x, rows * d) X(IN, float, gamma, d) X(IN, float, beta, d) \
 *       X(VAL, float, eps, 1) X(VAL, size_t, rows, 1) X(VAL, size_t, d, 1) \
 *       X(OUT, float, y, rows * d)
 *   NL_CALL(int, nl_rmsnorm_fused)          (NL_CALL_VOID(name) for void)
 *
 * The parameters in the function's own order, each X(KIND, TYPE, NAME, COUNT):
 *   VAL    TYPE NAME, passed by value (any plain type: a float, an enum,
 *          a struct such as nl_moments); COUNT unused (write 1)
 *   IN     const TYPE *NAME: COUNT elements the function reads (or NULL)
 *   OUT    TYPE *NAME: COUNT elements it writes (or NULL), sent back
 *   INOUT  TYPE *NAME: COUNT elements read and written, sent both ways
 *   JSON   const cJSON *NAME: sent as its text, parsed by the worker
 *   STRV   const char *const *NAME: a NULL-terminated list of strings
 *   ERR    no parameter: the answer carries nl_last_error(), which the
 *          judge's side sets in turn (for functions that report errors)
 * COUNT may name any VAL parameter (rows * d): it is computed on both
 * sides, from the same values.  The worker builds the prototype from the
 * list, so a description that does not match the student's header is a
 * compile error of the grader (CONTRIBUTING.md, "A graded exercise"), not
 * a silent mismatch.
 *
 * A line `// @worker-links DIR/FILE.c` (a library file under code/) moves
 * that file's object from the judge to the worker: stage.sh links it into
 * worker.o and leaves it out of the judge's library, and a description of
 * its functions then runs them, with the student's functions they call, in
 * the worker.  For a function called once per value inside a library loop
 * (03's nl_welford_push in the kernel layernorm_welford): the judge then
 * makes one round trip per kernel call, not one per value.  Only trusted
 * library code that holds no answer of the exercise belongs there.
 *
 * proxy.c turns each description into the judge's definition of the
 * function (send, wait, check, copy back); worker.c into the worker's
 * server of it (receive, call the student's function, answer). */
#ifndef NL_JUDGE_CALLS_H
#define NL_JUDGE_CALLS_H

#define NL_DROP1_(first, ...) __VA_ARGS__
#define NL_DROP1(...) NL_DROP1_(__VA_ARGS__)

/* The parameter list of the function, from its description. */
#define NL_PROTO_VAL(T, n) , T n
#define NL_PROTO_IN(T, n) , const T *n
#define NL_PROTO_OUT(T, n) , T *n
#define NL_PROTO_INOUT(T, n) , T *n
#define NL_PROTO_JSON(T, n) , const cJSON *n
#define NL_PROTO_STRV(T, n) , const char *const *n
#define NL_PROTO_ERR(T, n)
#define NL_PROTO_(K, T, n, c) NL_PROTO_##K(T, n)
#define NL_PROTO(name) NL_DROP1(NL_ARGS_##name(NL_PROTO_))

/* The arguments of a call of it. */
#define NL_NAME_VAL(n) , n
#define NL_NAME_IN(n) , n
#define NL_NAME_OUT(n) , n
#define NL_NAME_INOUT(n) , n
#define NL_NAME_JSON(n) , n
#define NL_NAME_STRV(n) , n
#define NL_NAME_ERR(n)
#define NL_NAME_(K, T, n, c) NL_NAME_##K(n)
#define NL_ARGLIST(name) NL_DROP1(NL_ARGS_##name(NL_NAME_))

/* Bytes of an array parameter. */
#define NL_BYTES(T, c) ((uint64_t)((size_t)(c) * sizeof(T)))

#endif
